import Cairn
import Foundation
import Testing

// Written as SwiftData code is: `.ephemeral` attributes, tracked but never written.

@Model final class Outline {
    var title: String
    @Attribute(.ephemeral) var isExpanded = false
    @Attribute(.ephemeral) var draft: String?
    init(title: String) { self.title = title }
}

@Suite struct EphemeralAttributeTests {
    let directory = TemporaryDirectory()

    private func container() throws -> ModelContainer {
        try makeContainer(Outline.self, in: directory, named: "Outline.store")
    }

    @Test func changesAreTrackedButNeverWritten() throws {
        let context = ModelContext(try container())
        let outline = Outline(title: "Plan")
        outline.isExpanded = true
        outline.draft = "half a thought"
        context.insert(outline)
        try context.save()
        #expect(outline.isExpanded && outline.draft == "half a thought", "the context keeps its values")

        outline.isExpanded = false
        #expect(context.hasChanges, "tracked: a change of the model")
        outline.isExpanded = true
        try context.save()

        let elsewhere = ModelContext(try container())
        let stored = try #require(try elsewhere.fetch(FetchDescriptor<Outline>()).first)
        #expect(stored.title == "Plan")
        #expect(!stored.isExpanded && stored.draft == nil, "never written: read from the store, the defaults")

        stored.title = "Plan B"
        try elsewhere.save()
        _ = try context.fetch(FetchDescriptor<Outline>())
        #expect(outline.title == "Plan B", "the stored change is taken")
        #expect(outline.isExpanded && outline.draft == "half a thought", "the ephemeral values stay")
    }
}
