import Foundation
import Testing

@testable import Cairn

@Model final class ArchivedPhoto {
    var caption: String
    @Attribute(.externalStorage) var pixels: Data
    @Attribute(.externalStorage) var thumbnail: Data?
    init(caption: String, pixels: Data) {
        self.caption = caption
        self.pixels = pixels
    }
}

@Suite struct ExternalStorageTests {
    @Test func externalValuesLiveOutsideTheRecordAndLoadOnlyWhenRead() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Photos.store"))
        let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let id: PersistentIdentifier
        do {
            let context = ModelContext(
                try ModelContainer(for: ArchivedPhoto.self, configurations: ModelConfiguration(url: url)))
            let photo = ArchivedPhoto(caption: "Harbour", pixels: big)
            context.insert(photo)
            try context.save()
            id = photo.persistentModelID
        }
        let container = try ModelContainer(for: ArchivedPhoto.self, configurations: ModelConfiguration(url: url))
        let tables = try #require(container.store.entities["ArchivedPhoto"])
        let recordSize = try container.store.environment.read { txn in
            try txn.withValue(for: EntryLayout.rowKey(id.rowID!), in: tables.layout.records) { $0.count }
        }
        #expect(try #require(recordSize) < 200, "the record holds the caption, not the pixels")
        let context = ModelContext(container)
        let photo = try #require(try context.fetch(FetchDescriptor<ArchivedPhoto>()).first)
        #expect(photo.caption == "Harbour")
        let pixels = try #require(tables.entity.attributesByName["pixels"]?.access)
        #expect(!pixels.isLoaded(photo), "reading the caption did not load the pixels")
        #expect(photo.pixels == big && photo.thumbnail == nil)
        #expect(pixels.isLoaded(photo))
        photo.caption = "Harbour at dawn"
        try context.save()
        let again = ModelContext(
            try ModelContainer(for: ArchivedPhoto.self, configurations: ModelConfiguration(url: url)))
        let reloaded = try #require(again.model(for: id) as? ArchivedPhoto)
        #expect(reloaded.caption == "Harbour at dawn" && reloaded.pixels == big, "an unchanged external value stays")
        reloaded.thumbnail = Data([1, 2, 3])
        try again.save()
        again.delete(reloaded)
        try again.save()
        let externals = try #require(tables.layout.externals)
        #expect(try container.store.environment.read { txn in try txn.count(of: externals) } == 0)
    }
}
