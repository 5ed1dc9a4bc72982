import Cairn
import Foundation
import Testing

// Written as SwiftData code is: contexts other than the main one that autosave.

@Model final class Jotting {
    var text: String
    init(text: String) { self.text = text }
}

@ModelActor actor JottingWriter {
    /// Turns autosave on for the actor's context and inserts `texts` in one call, without saving.
    func jot(_ texts: [String]) {
        modelContext.autosaveEnabled = true
        for text in texts { modelContext.insert(Jotting(text: text)) }
    }

    /// Changes every jotting's text in one call, without saving.
    func shout() throws {
        for jotting in try modelContext.fetch(FetchDescriptor<Jotting>()) { jotting.text = jotting.text.uppercased() }
    }

    /// Inserts through a context made inside the actor's work, with autosave on, without saving.
    func jotInAContextOfItsOwn(_ text: String) {
        let context = ModelContext(modelContainer)
        context.autosaveEnabled = true
        context.insert(Jotting(text: text))
        Self.kept.withLock { $0.append(context) }
    }

    func hasChanges() -> Bool { modelContext.hasChanges }

    /// Counts the saves of the actor's context into `saves` until `stopCounting()`.
    func countSaves(into saves: Mutex<Int>) {
        observer = NotificationCenter.default.addObserver(
            forName: ModelContext.didSave, object: modelContext, queue: nil
        ) { _ in saves.withLock { $0 += 1 } }
    }

    func stopCounting() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    private var observer: (any NSObjectProtocol)?

    /// Contexts made by `jotInAContextOfItsOwn`, kept alive until their autosave ran.
    static let kept = Mutex<[ModelContext]>([])
}

/// A lock around a value; enough for the tests' bookkeeping.
final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}

@Suite struct AutosaveTests {
    private func container() throws -> ModelContainer {
        try makeContainer(inMemory: Jotting.self)
    }

    /// Waits until `condition` holds, or about two seconds.
    private func eventually(
        isolation: isolated (any Actor)? = #isolation, _ condition: () throws -> Bool
    ) async throws -> Bool {
        for _ in 0..<400 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return try condition()
    }

    @Test func contextsYouCreateDoNotAutosaveUntilAsked() throws {
        #expect(!ModelContext(try container()).autosaveEnabled, "as in SwiftData: only the main context does")
    }

    @Test func aModelActorsContextAutosavesOnceAfterEachCall() async throws {
        let container = try container()
        let writer = JottingWriter(modelContainer: container)
        let saves = Mutex(0)
        await writer.countSaves(into: saves)

        await writer.jot(["a", "b", "c"])
        let reader = ModelContext(container)
        #expect(try await eventually { try reader.fetchCount(FetchDescriptor<Jotting>()) == 3 })
        #expect(await !writer.hasChanges())
        #expect(saves.withLock { $0 } == 1, "the three inserts of one call are one save")

        try await writer.shout()
        #expect(
            try await eventually {
                try reader.fetch(FetchDescriptor<Jotting>()).allSatisfy { $0.text == $0.text.uppercased() }
            })
        #expect(saves.withLock { $0 } == 2)
        await writer.stopCounting()
    }

    @Test func aContextMadeInsideAModelActorsWorkAutosavesOnThatActor() async throws {
        let container = try container()
        let writer = JottingWriter(modelContainer: container)
        await writer.jotInAContextOfItsOwn("inside")
        let reader = ModelContext(container)
        #expect(try await eventually { try reader.fetch(FetchDescriptor<Jotting>()).map(\.text) == ["inside"] })
        JottingWriter.kept.withLock { $0.removeAll() }
    }

    @MainActor @Test func aContextMadeOnTheMainActorAutosavesThere() async throws {
        let container = try container()
        let context = ModelContext(container)
        context.autosaveEnabled = true
        context.insert(Jotting(text: "main"))
        #expect(context.hasChanges, "not before the main actor's turn is over")
        #expect(try await eventually { !context.hasChanges })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Jotting>()) == 1)
    }
}
