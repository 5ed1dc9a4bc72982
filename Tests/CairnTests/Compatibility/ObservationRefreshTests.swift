import Cairn
import Foundation
import Observation
import Testing

// Written as SwiftData code is: a model observed with Observation hears of values it takes from
// the store, not only of its own setters.

@Model final class Headline {
    var text: String
    var edits: Int = 0
    init(text: String) { self.text = text }
}

/// Records whether an observation's `onChange` ran.
final class ChangeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}

@Suite struct ObservationRefreshTests {
    let directory = TemporaryDirectory()

    private func container() throws -> ModelContainer {
        try makeContainer(Headline.self, in: directory, named: "Headlines.store")
    }

    @Test func anotherContextsSaveNotifiesObserversOfTheValuesItChanged() throws {
        let container = try container()
        let reader = ModelContext(container)
        reader.insert(Headline(text: "Draft"))
        try reader.save()
        let headline = try #require(try reader.fetch(FetchDescriptor<Headline>()).first)

        let textChanged = ChangeFlag()
        withObservationTracking {
            _ = headline.text
        } onChange: {
            textChanged.raise()
        }

        let writer = ModelContext(container)
        let same = try #require(try writer.fetch(FetchDescriptor<Headline>()).first)
        same.text = "Final"
        try writer.save()
        #expect(!textChanged.isRaised, "nothing seen until the context looks at the store")

        _ = try reader.fetch(FetchDescriptor<Headline>())
        #expect(textChanged.isRaised)
        #expect(headline.text == "Final")
    }

    @Test func aRollbackNotifiesObserversOfTheValuesItRestores() throws {
        let context = ModelContext(try container())
        let headline = Headline(text: "Draft")
        context.insert(headline)
        try context.save()
        headline.text = "Scribble"
        let changed = ChangeFlag()
        withObservationTracking {
            _ = headline.text
        } onChange: {
            changed.raise()
        }
        context.rollback()
        #expect(changed.isRaised)
        #expect(headline.text == "Draft")
    }
}
