import Cairn
import Foundation
import Testing

// Written as SwiftData code is: a to-many relationship holds each member once.

@Model final class Playlist {
    var name: String
    @Relationship(inverse: \Song.playlists) var songs: [Song] = []
    init(name: String) { self.name = name }
}

@Model final class Song {
    var title: String
    var playlists: [Playlist] = []
    var album: Album?
    init(title: String) { self.title = title }
}

@Model final class Album {
    var name: String
    @Relationship(inverse: \Song.album) var songs: [Song] = []
    init(name: String) { self.name = name }
}

@Suite struct ToManyMembershipTests {
    @Test func appendingAPresentMemberIsIgnored() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Music.store")))
        do {
            let context = ModelContext(try ModelContainer(for: Playlist.self, configurations: configuration))
            let playlist = Playlist(name: "Mix")
            let first = Song(title: "One")
            let second = Song(title: "Two")
            let album = Album(name: "Both")
            for model in [playlist, first, second] as [any PersistentModel] { context.insert(model) }
            context.insert(album)
            playlist.songs.append(first)
            playlist.songs.append(second)
            playlist.songs.append(first)
            #expect(playlist.songs.map(\.title) == ["One", "Two"], "order kept, the second append ignored")
            #expect(first.playlists.count == 1 && first.playlists.first === playlist)
            playlist.songs = [second, first, second]
            #expect(playlist.songs.map(\.title) == ["Two", "One"], "an assigned list keeps each member's first place")
            #expect(second.playlists.count == 1)
            album.songs.append(first)
            album.songs.append(first)
            #expect(album.songs.count == 1 && first.album === album)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Playlist.self, configurations: configuration))
        let playlist = try #require(try context.fetch(FetchDescriptor<Playlist>()).first)
        #expect(playlist.songs.map(\.title) == ["Two", "One"])
        #expect(playlist.songs.allSatisfy { $0.playlists.count == 1 })
        #expect(try context.fetch(FetchDescriptor<Album>()).first?.songs.count == 1)
    }
}
