import Foundation
import Testing

@testable import Cairn

/// Who may use a context, asked without stopping the process (the exit tests in
/// `ContextOwnershipTests` check the stop and its message).
@Suite struct ContextOwnerTests {
    /// `permitsCaller` of `owner`, asked from a thread that is neither main nor an executor's.
    private func askedFromAnotherThread(_ owner: ContextOwner) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: owner.permitsCaller) }
        }
    }

    @Test func aContextYouMadeIsUsableAnywhere() async {
        #expect(ContextOwner.unchecked.permitsCaller)
        #expect(await askedFromAnotherThread(.unchecked))
    }

    @Test @MainActor func theMainContextIsUsableOnlyOnTheMainActor() async {
        #expect(ContextOwner.mainActor.permitsCaller)
        #expect(await !askedFromAnotherThread(.mainActor))
    }

    @Test func aModelActorsContextIsUsableOnlyOnItsExecutor() async throws {
        let container = try makeContainer(inMemory: Gauge.self)
        let probe = OwnerProbe(modelContainer: container)
        #expect(await probe.ownerPermitsItself())
        let owner = await probe.owner()
        #expect(!owner.permitsCaller)
        #expect(await !askedFromAnotherThread(owner))
        #expect(await !OwnerProbe(modelContainer: container).permits(owner), "another actor's executor")
    }

    @Test func aModelActorsContextIsUsableInsideAnotherQueuesSyncInItsWork() async throws {
        let container = try makeContainer(inMemory: Gauge.self)
        let probe = OwnerProbe(modelContainer: container)
        #expect(await probe.ownerPermitsItselfInsideAnotherQueuesSync(), "the job still runs on the actor's executor")
        let owner = await probe.owner()
        let other = OwnerProbe(modelContainer: container)
        #expect(await !other.permitsInsideAnotherQueuesSync(owner), "another actor's job, inside a sync, is not it")
    }

    @Test func theMessageNamesTheOperationAndTheOwner() {
        let message = ContextOwner.misuseMessage("save()", owner: "the main actor")
        #expect(message.contains("save() was called off the executor") && message.contains("the main actor"))
    }
}

@ModelActor
actor OwnerProbe {
    func ownerPermitsItself() -> Bool { modelContext.owner.permitsCaller }
    func owner() -> ContextOwner { modelContext.owner }
    func permits(_ owner: ContextOwner) -> Bool { owner.permitsCaller }
    func ownerPermitsItselfInsideAnotherQueuesSync() -> Bool {
        DispatchQueue(label: "elsewhere").sync { modelContext.owner.permitsCaller }
    }
    func permitsInsideAnotherQueuesSync(_ owner: ContextOwner) -> Bool {
        DispatchQueue(label: "elsewhere").sync { owner.permitsCaller }
    }
}
