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
/// relationships are loaded both ways keep each other alive, as managed objects do in Core Data
/// (see "Memory" in Docs/Concurrency.md); they do not keep their context or store alive.
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
}
