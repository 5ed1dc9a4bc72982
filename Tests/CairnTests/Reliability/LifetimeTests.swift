import Foundation
import Testing

@testable import Cairn

@Model final class LifetimeOwner {
    #Unique<LifetimeOwner>([\.code])
    var code: Int
    @Relationship(deleteRule: .cascade, inverse: \LifetimeItem.owner) var items: [LifetimeItem] = []
    init(code: Int) { self.code = code }
}

@Model final class LifetimeItem {
    var title: String
    var owner: LifetimeOwner?
    init(title: String) { self.title = title }
}

/// A container and its contexts, once released, leave nothing open: no file descriptors, no
/// mapped store (a long-running process opens and closes many stores). Models whose
/// relationships are loaded both ways hold each other, as managed objects do in Core Data; when
/// their context goes, those nothing else holds are freed, and those the app still reaches keep
/// their relationships (see "Memory" in Docs/Concurrency.md). They do not keep their context or
/// store alive.
@Suite struct LifetimeTests {
    /// The process's open file descriptors on files under `directory` (other tests run in
    /// parallel, so the process-wide count says nothing).
    private static func openDescriptors(under directory: String) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        }
        .filter { $0.hasPrefix(directory) }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func releasedContainersCloseTheirStores() throws {
        let directory = TemporaryDirectory()
        weak var lastContainer: ModelContainer?
        weak var lastContext: ModelContext?
        func useAStore(_ round: Int) throws {
            let container = try makeContainer(LifetimeOwner.self, LifetimeItem.self, in: directory, named: "Store\(round).store")
            let context = ModelContext(container)
            for code in 0..<200 {
                let owner = LifetimeOwner(code: code)
                context.insert(owner)
                for position in 0..<5 {
                    let item = LifetimeItem(title: "\(code).\(position)")
                    context.insert(item)
                    item.owner = owner
                }
            }
            try context.save()
            _ = try context.upsert((0..<300).lazy.map { LifetimeOwner(code: $0) })
            var descriptor = FetchDescriptor<LifetimeOwner>()
            descriptor.relationshipKeyPathsForPrefetching = [\.items]
            let owners = try context.fetch(descriptor)
            #expect(owners.count == 300)
            lastContext = context
            lastContainer = container
        }
        try useAStore(0)
        for round in 1...20 { try useAStore(round) }
        #expect(lastContainer == nil, "the container was released")
        #expect(lastContext == nil, "the context was released")
        #expect(Self.openDescriptors(under: directory.path) == [], "no store left open")
    }

    /// Weak references to models of a graph made in a context that is gone when this returns.
    private struct Watched {
        weak var owner: LifetimeOwner?
        weak var item: LifetimeItem?
    }

    /// Inserts `owners` owners with three items each through a context of its own, saves unless
    /// `save` is false, and hands the first owner and its first item to `keep` before the context
    /// goes.
    private static func graph(
        in container: ModelContainer, owners: Int = 50, save: Bool = true,
        keep: (LifetimeOwner, LifetimeItem) -> Void = { _, _ in }
    ) throws -> Watched {
        let context = ModelContext(container)
        var watched = Watched()
        for code in 0..<owners {
            let owner = LifetimeOwner(code: code)
            context.insert(owner)
            for position in 0..<3 { owner.items.append(LifetimeItem(title: "\(code).\(position)")) }
            if code == 0 { (watched.owner, watched.item) = (owner, owner.items[0]) }
        }
        if save { try context.save() }
        keep(watched.owner!, watched.item!)
        return watched
    }

    @Test func aGraphNothingHoldsIsFreedWithItsContext() throws {
        let container = try makeContainer(inMemory: LifetimeOwner.self, LifetimeItem.self)
        let saved = try Self.graph(in: container)
        #expect(saved.owner == nil, "a saved owner whose items refer back to it was freed with its context")
        #expect(saved.item == nil, "a saved item was freed with its context")
        let unsaved = try Self.graph(in: container, save: false)
        #expect(unsaved.owner == nil && unsaved.item == nil, "unsaved inserts were freed with their context")
    }

    @Test func aGraphFetchedWithItsRelationshipsIsFreedWithItsContext() throws {
        let container = try makeContainer(inMemory: LifetimeOwner.self, LifetimeItem.self)
        _ = try Self.graph(in: container)
        func fetch() throws -> Watched {
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<LifetimeOwner>(sortBy: [SortDescriptor(\.code)])
            descriptor.relationshipKeyPathsForPrefetching = [\.items]
            let owners = try context.fetch(descriptor)
            #expect(owners.count == 50 && owners[0].items.count == 3 && owners[0].items[0].owner === owners[0])
            return Watched(owner: owners[0], item: owners[0].items[0])
        }
        let fetched = try fetch()
        #expect(fetched.owner == nil && fetched.item == nil, "a fetched graph was freed with its context")
    }

    @Test func modelsTheAppKeepsReadTheirRelationshipsAfterTheContextIsGone() throws {
        let container = try makeContainer(inMemory: LifetimeOwner.self, LifetimeItem.self)
        var keptOwner: LifetimeOwner?
        let ownerKept = try Self.graph(in: container) { owner, _ in keptOwner = owner }
        let owner = try #require(keptOwner)
        #expect(
            owner.items.map(\.title).sorted() == ["0.0", "0.1", "0.2"], "the kept owner's items are loaded as before")
        #expect(owner.items.allSatisfy { $0.owner === owner }, "and each item's owner is the kept owner")
        #expect(ownerKept.item != nil, "an item the kept owner reaches is alive")
        keptOwner = nil

        var keptItem: LifetimeItem?
        let itemKept = try Self.graph(in: container, save: false) { _, item in keptItem = item }
        let item = try #require(keptItem)
        let itemOwner = try #require(item.owner, "the kept item's owner is loaded as before")
        #expect(itemOwner.code == 0 && itemOwner.items.count == 3 && itemOwner.items.contains { $0 === item })
        #expect(itemKept.owner != nil, "the owner the kept item reaches is alive")
    }
}
