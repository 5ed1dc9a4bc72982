import Cairn
import Foundation
import Testing

// Written as SwiftData models are: stored properties whose type the initial value tells.

enum DraftKind: String, Codable {
    case note, letter
}

@Model final class Draft {
    var title = ""
    var count = 0
    var isEditing = false
    var ratio = 1.5
    var offset = -3
    var created = Date()
    var identifier = UUID()
    var tags: [String] = []
    var labels = ["inbox", "later"]
    var kind = DraftKind.note
    var seen = Set<String>()
    var scores = [String: Int]()
    var link = URL(string: "https://example.org")!

    init() {}
}

@Suite struct InferredTypeTests {
    @Test func propertiesTypedByTheirInitialValuesAreStoredAndReadBack() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Drafts.store")))
        let created = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let identifier = UUID()
        do {
            let context = ModelContext(try ModelContainer(for: Draft.self, configurations: configuration))
            let draft = Draft()
            #expect(draft.title == "" && draft.count == 0 && !draft.isEditing && draft.labels == ["inbox", "later"])
            context.insert(draft)
            draft.title = "Letter to Ada"
            draft.count = 3
            draft.isEditing = true
            draft.ratio = 0.25
            draft.offset = -7
            draft.created = created
            draft.identifier = identifier
            draft.tags = ["personal"]
            draft.labels.append("sent")
            draft.kind = .letter
            draft.seen = ["ada"]
            draft.scores = ["ada": 2]
            draft.link = URL(string: "https://example.org/letters/1")!
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Draft.self, configurations: configuration))
        let draft = try #require(try context.fetch(FetchDescriptor<Draft>()).first)
        #expect(draft.title == "Letter to Ada" && draft.count == 3 && draft.isEditing)
        #expect(draft.ratio == 0.25 && draft.offset == -7 && draft.created == created)
        #expect(draft.identifier == identifier && draft.tags == ["personal"])
        #expect(draft.labels == ["inbox", "later", "sent"] && draft.kind == .letter)
        #expect(draft.seen == ["ada"] && draft.scores == ["ada": 2])
        #expect(draft.link == URL(string: "https://example.org/letters/1")!)
        let editing = try context.fetch(FetchDescriptor<Draft>(predicate: #Predicate { $0.isEditing && $0.count > 2 }))
        #expect(editing.count == 1)
    }

    @Test func theSchemaNamesTheInferredTypes() throws {
        let schema = Schema([Draft.self])
        let entity = try #require(schema.entity(for: Draft.self))
        #expect(entity.attributes.count == 13)
        #expect(entity.attributesByName["isEditing"]?.valueType == Bool.self)
        #expect(entity.attributesByName["ratio"]?.valueType == Double.self)
        #expect(entity.attributesByName["kind"]?.valueType == DraftKind.self)
        #expect(entity.attributesByName["seen"]?.valueType == Set<String>.self)
    }
}
