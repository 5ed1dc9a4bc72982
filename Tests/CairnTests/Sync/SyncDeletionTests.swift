import Cairn
import CairnSync
import Foundation
import Testing

/// A model deleted on one replica and edited on another where the deletion did not see the edit:
/// the deletion wins unless the model type's deletion resolver keeps the edited model, which then
/// lives on as one new row on every replica.
@Suite struct SyncDeletionTests {
    /// Three replicas holding one book; `deleter` deletes it, then each of `editors` edits it
    /// (later, without having seen the deletion); then all sync.
    private func run(
        resolution: SyncDeletionResolution?, editors: [Int], asked: SyncDeletionLog = SyncDeletionLog()
    ) async throws -> [ReplicaContents] {
        let server = InMemorySyncServer()
        let replicas = try (0..<3).map { _ in
            try TestReplica(server: server) { configuration in
                guard let resolution else { return }
                configuration.resolveDeletions(of: ReplicatedBook.self) { deletion in
                    asked.append(deletion)
                    return resolution
                }
            }
        }
        try replicas[0].change { context in
            let author = ReplicatedAuthor(name: "Austen")
            context.insert(ReplicatedBook(title: "Emma", pages: 100, author: author))
        }
        for replica in replicas { try await replica.engine.sync() }
        try replicas[1].change { context in context.delete(try context.fetch(FetchDescriptor<ReplicatedBook>()).first!) }
        for editor in editors {
            try await Task.sleep(for: .milliseconds(3))
            try replicas[editor].change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = 200 + editor }
        }
        for _ in 0..<3 { for replica in [replicas[1], replicas[0], replicas[2]] { try await replica.engine.sync() } }
        return try replicas.map { try $0.contents() }
    }

    @Test func withoutAResolverTheDeletionWins() async throws {
        let contents = try await run(resolution: nil, editors: [0])
        #expect(contents[0].books.isEmpty)
        #expect(contents.allSatisfy { $0 == contents[0] })
    }

    @Test func aResolverThatDeletesLeavesItDeleted() async throws {
        let asked = SyncDeletionLog()
        let contents = try await run(resolution: .delete, editors: [0], asked: asked)
        #expect(contents[0].books.isEmpty)
        #expect(contents.allSatisfy { $0 == contents[0] })
        let deletion = try #require(asked.all.first)
        #expect(deletion.entityName == "ReplicatedBook")
        #expect(deletion.editedFieldNames == ["pages"])
        #expect(deletion.editedDate > deletion.deletedDate)
    }

    @Test func aResolverThatKeepsTheEditBringsTheModelBackEverywhere() async throws {
        let contents = try await run(resolution: .keepEdited, editors: [0])
        #expect(contents[0].books == ["Emma|200|Austen|-1.0"])
        #expect(contents.allSatisfy { $0 == contents[0] })
    }

    /// Two replicas keep the edited model: they make one row, with the later edit.
    @Test func twoReplicasKeepingItMakeOneRow() async throws {
        let contents = try await run(resolution: .keepEdited, editors: [0, 2])
        #expect(contents[0].books == ["Emma|202|Austen|-1.0"])
        #expect(contents.allSatisfy { $0 == contents[0] })
    }
}

/// The deletions a resolver was asked about, from any executor.
final class SyncDeletionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var deletions: [SyncDeletion] = []

    func append(_ deletion: SyncDeletion) { lock.withLock { deletions.append(deletion) } }
    var all: [SyncDeletion] { lock.withLock { deletions } }
}
