import Foundation
import Testing

@testable import Cairn

/// Carries a value across isolation on purpose, to show what the debug checks catch.
struct SmuggledContext: @unchecked Sendable {
    let context: ModelContext
}

extension TallyWriter {
    /// Hands the actor's context out of the actor: a misuse, for the exit tests.
    func smuggleContext() -> SmuggledContext { SmuggledContext(context: modelContext) }
}

/// In debug builds a context owned by a model actor or by the main actor stops the process, with
/// a message naming the misuse, when it is used off its owner.
@Suite struct ContextOwnershipTests {
    @Test func aModelActorsContextUsedOffItsExecutorStopsWithAMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try tallyContainer()
            let writer = TallyWriter(modelContainer: container)
            let smuggled = await writer.smuggleContext()
            _ = try smuggled.context.fetchCount(FetchDescriptor<Tally>())
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            message.contains("ModelContext misuse: fetchCount(_:) was called off the executor that owns this context"))
        #expect(message.contains("the model actor whose DefaultSerialModelExecutor owns it"))
    }

    @Test func theMainContextUsedOffTheMainActorStopsWithAMessage() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try tallyContainer()
            let smuggled = await MainActor.run { SmuggledContext(context: container.mainContext) }
            smuggled.context.insert(Tally(label: "off the main actor", amount: 1))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("ModelContext misuse: insert(_:) was called off the executor that owns this context"))
        #expect(message.contains("the main actor (it is container.mainContext)"))
    }

    @Test func aContextUsedOnItsOwnerPasses() async throws {
        let writer = TallyWriter(modelContainer: try tallyContainer())
        _ = try await writer.add("on its executor")
        #expect(try await writer.count() == 1)
    }
}
