import Cairn
import Foundation
import Testing

// Written as CloudKit-ready SwiftData models are: every to-many relationship optional.

@Model final class CloudFolder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \CloudNote.folder) var notes: [CloudNote]? = []
    init(name: String) { self.name = name }
}

@Model final class CloudNote {
    var text: String
    var folder: CloudFolder?
    var tags: [CloudTag]?
    init(text: String) { self.text = text }
}

@Model final class CloudTag {
    var name: String
    var notes: [CloudNote]? = []
    init(name: String) { self.name = name }
}

@Suite struct OptionalToManyTests {
    @Test func optionalToManysKeepTheirInversesAndSurviveReopening() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Cloud.store")))
        do {
            let context = ModelContext(try ModelContainer(for: CloudFolder.self, configurations: configuration))
            let folder = CloudFolder(name: "Inbox")
            let first = CloudNote(text: "first")
            let second = CloudNote(text: "second")
            let tag = CloudTag(name: "urgent")
            context.insert(folder)
            context.insert(first)
            context.insert(second)
            context.insert(tag)
            folder.notes?.append(first)
            second.folder = folder
            #expect(first.folder === folder, "the inverse of an append")
            #expect(folder.notes?.map(\.text) == ["first", "second"], "the inverse of a to-one")
            first.tags = [tag]
            #expect(tag.notes?.map(\.text) == ["first"], "an inferred inverse between two optional to-manys")
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: CloudFolder.self, configurations: configuration))
        let folder = try #require(try context.fetch(FetchDescriptor<CloudFolder>()).first)
        #expect(folder.notes?.map(\.text) == ["first", "second"])
        let tag = try #require(try context.fetch(FetchDescriptor<CloudTag>()).first)
        #expect(tag.notes?.map(\.text) == ["first"])
        let second = try #require(
            try context.fetch(FetchDescriptor<CloudNote>(predicate: #Predicate { $0.text == "second" })).first)
        #expect(second.tags?.isEmpty ?? true, "none stored reads as none")

        folder.notes = nil
        #expect(second.folder == nil, "nil is no members: the inverses follow")
        try context.save()
        let reread = ModelContext(try ModelContainer(for: CloudFolder.self, configurations: configuration))
        #expect(try reread.fetch(FetchDescriptor<CloudFolder>()).first?.notes?.isEmpty == true)
    }

    @Test func anOptionalToManyCascades() throws {
        let context = ModelContext(
            try makeContainer(inMemory: CloudFolder.self))
        let folder = CloudFolder(name: "Old")
        context.insert(folder)
        let note = CloudNote(text: "gone with it")
        context.insert(note)
        note.folder = folder
        try context.save()
        context.delete(folder)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<CloudNote>()) == 0)
    }

    @Test func theSchemaPairsTheInverses() throws {
        let schema = Schema([CloudFolder.self])
        try schema.validate()
        let note = try #require(schema.entity(for: CloudNote.self))
        #expect(note.relationshipsByName["tags"]?.inverseName == "notes")
        #expect(schema.entity(for: CloudTag.self)?.relationshipsByName["notes"]?.inverseName == "tags")
        #expect(schema.entity(for: CloudFolder.self)?.relationshipsByName["notes"]?.isToOneRelationship == false)
    }
}
