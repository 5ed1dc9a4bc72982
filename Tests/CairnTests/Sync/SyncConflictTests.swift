import Cairn
import CairnSync
import Foundation
import Testing

/// A resolver per model type decides between two writes of one attribute, the same way on every
/// replica whichever wrote first.
@Suite struct SyncConflictTests {
    /// Books keep the higher page count of two concurrent writes; titles are left to the clock.
    static func higherPagesWin(_ configuration: inout SyncConfiguration) {
        configuration.resolveConflicts(of: ReplicatedBook.self) { conflict in
            guard conflict.fieldName == "pages", let (earlier, later) = conflict.values(as: Int.self) else {
                return .keepLater
            }
            return earlier > later ? .keepEarlier : .keepLater
        }
    }

    /// Two replicas write `pages` of one book, `first` on A and then `second` on B, then sync.
    private func concurrentPages(_ first: Int, _ second: Int, resolver: Bool) async throws -> [TestReplica] {
        let server = InMemorySyncServer()
        func configure(_ configuration: inout SyncConfiguration) {
            if resolver { Self.higherPagesWin(&configuration) }
        }
        let (a, b) = (try TestReplica(server: server, configure: configure), try TestReplica(server: server, configure: configure))
        try a.change { $0.insert(ReplicatedBook(title: "Draft", pages: 10)) }
        try await a.engine.sync()
        try await b.engine.sync()
        try a.change { try $0.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = first }
        try await Task.sleep(for: .milliseconds(5))
        try b.change { try $0.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = second }
        for _ in 0..<2 {
            try await a.engine.sync()
            try await b.engine.sync()
        }
        return [a, b]
    }

    @Test func aResolverKeepsTheEarlierWriteEverywhere() async throws {
        let replicas = try await concurrentPages(500, 50, resolver: true)
        for replica in replicas { #expect(try replica.contents().books == ["Draft|500|-|-1.0"]) }
    }

    @Test func aResolverKeepsTheLaterWriteWhenItSaysSo() async throws {
        let replicas = try await concurrentPages(50, 500, resolver: true)
        for replica in replicas { #expect(try replica.contents().books == ["Draft|500|-|-1.0"]) }
    }

    @Test func withoutAResolverTheLaterWriteWins() async throws {
        let replicas = try await concurrentPages(500, 50, resolver: false)
        for replica in replicas { #expect(try replica.contents().books == ["Draft|50|-|-1.0"]) }
    }

    @Test func aThirdReplicaThatSawOnlyOneWriteEndsWithTheResolution() async throws {
        let server = InMemorySyncServer()
        let replicas = try (0..<3).map { _ in try TestReplica(server: server, configure: Self.higherPagesWin) }
        try replicas[0].change { $0.insert(ReplicatedBook(title: "Draft", pages: 10)) }
        for replica in replicas { try await replica.engine.sync() }
        try replicas[0].change { try $0.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = 900 }
        try await Task.sleep(for: .milliseconds(5))
        try replicas[1].change { try $0.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = 90 }
        try await replicas[1].engine.sync()
        try await replicas[2].engine.sync()
        try await replicas[0].engine.sync()
        for _ in 0..<2 { for replica in replicas { try await replica.engine.sync() } }
        for replica in replicas { #expect(try replica.contents().books == ["Draft|900|-|-1.0"]) }
    }

    @Test func theConflictCarriesTheTwoValuesTypedAndTheirDates() async throws {
        let seen = ConflictLog()
        let server = InMemorySyncServer()
        let configure: (inout SyncConfiguration) -> Void = { configuration in
            configuration.resolveConflicts(of: ReplicatedBook.self) { conflict in
                seen.add(conflict)
                return .keepLater
            }
        }
        let (a, b) = (try TestReplica(server: server, configure: configure), try TestReplica(server: server, configure: configure))
        try a.change { $0.insert(ReplicatedBook(title: "Draft")) }
        try await a.engine.sync()
        try await b.engine.sync()
        try a.change { try $0.fetch(FetchDescriptor<ReplicatedBook>()).first!.published = Date(timeIntervalSince1970: 1) }
        try await Task.sleep(for: .milliseconds(5))
        try b.change { try $0.fetch(FetchDescriptor<ReplicatedBook>()).first!.published = nil }
        try await b.engine.sync()
        try await a.engine.sync()
        try await b.engine.sync()
        let conflicts = seen.all
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect(conflict.entityName == "ReplicatedBook" && conflict.fieldName == "published")
        #expect(conflict.earlierDate < conflict.laterDate)
        let values = try #require(conflict.values(as: Date?.self))
        #expect(values.earlier == Date(timeIntervalSince1970: 1) && values.later == nil)
        #expect(conflict.values(as: String.self) == nil, "another type gives nil")
        #expect(try a.contents().books == ["Draft|100|-|-1.0"])
        #expect(try b.contents() == a.contents())
    }
}

/// The conflicts a resolver was asked about.
final class ConflictLog: @unchecked Sendable {
    // `lock` guards `conflicts`.
    private let lock = NSLock()
    private var conflicts: [SyncConflict] = []

    func add(_ conflict: SyncConflict) { lock.withLock { conflicts.append(conflict) } }
    var all: [SyncConflict] { lock.withLock { conflicts } }
}
