import Cairn
import CairnSync
import Foundation
import Testing

@Suite struct SyncMergeTests {
    @Test func rowsWithTheSameUniqueValueMergeIntoOneEverywhere() async throws {
        let server = InMemorySyncServer()
        let (a, b, c) = (try TestReplica(server: server), try TestReplica(server: server), try TestReplica(server: server))
        try a.change { $0.insert(ReplicatedTag(name: "swift", uses: 1)) }
        try await Task.sleep(for: .milliseconds(3))
        try b.change { $0.insert(ReplicatedTag(name: "swift", uses: 2)) }
        for _ in 0..<2 { for replica in [a, b, c] { try await replica.engine.sync() } }
        let (onA, onB, onC) = (try a.contents(), try b.contents(), try c.contents())
        #expect(onA.tags == ["swift|2"])
        #expect(onB == onA)
        #expect(onC == onA)
        // The merged row takes later writes from either side.
        try a.change { context in try context.fetch(FetchDescriptor<ReplicatedTag>()).first!.uses = 7 }
        for replica in [a, b, c] { try await replica.engine.sync() }
        #expect(try b.contents().tags == ["swift|7"])
        #expect(try c.contents().tags == ["swift|7"])
    }

    /// A link set and set back between two syncs is still this replica's newest write: it beats
    /// an older concurrent write on another replica, whichever side of the pair the app changed.
    @Test(arguments: [false, true]) func aLinkSetAndSetBackBetweenSyncsIsTheNewestWrite(throughTheList: Bool) async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            context.insert(ReplicatedBook(title: "Emma"))
            context.insert(ReplicatedAuthor(name: "Austen"))
            context.insert(ReplicatedAuthor(name: "Brontë"))
        }
        try await a.engine.sync()
        try await b.engine.sync()
        func fetch(_ context: ModelContext) throws -> (ReplicatedBook, ReplicatedAuthor, ReplicatedAuthor) {
            let authors = try context.fetch(FetchDescriptor<ReplicatedAuthor>(sortBy: [SortDescriptor(\.name)]))
            return (try context.fetch(FetchDescriptor<ReplicatedBook>()).first!, authors[0], authors[1])
        }
        // B's write is the older one.
        try b.change { context in
            let (book, austen, _) = try fetch(context)
            book.author = austen
        }
        try await Task.sleep(for: .milliseconds(3))
        try a.change { context in
            let (book, _, bronte) = try fetch(context)
            if throughTheList { bronte.books.append(book) } else { book.author = bronte }
        }
        try a.change { context in
            let (book, _, bronte) = try fetch(context)
            if throughTheList { bronte.books.removeAll { $0 === book } } else { book.author = nil }
        }
        for _ in 0..<2 { for replica in [a, b] { try await replica.engine.sync() } }
        #expect(try a.contents().books == ["Emma|100|-|-1.0"])
        #expect(try b.contents() == a.contents())
    }

    /// A list reordered in place (`removeLast` then `insert`) takes a member's inverse away and
    /// gives it back within one save: that is no write of the member's link, so a newer order
    /// does not undo an older unlink made elsewhere, and the member stays unlinked everywhere.
    @Test func aListReorderedInPlaceWritesNoLinkOfItsMembers() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            let austen = ReplicatedAuthor(name: "Austen")
            context.insert(austen)
            austen.books = [ReplicatedBook(title: "Emma"), ReplicatedBook(title: "Persuasion")]
        }
        try await a.engine.sync()
        try await b.engine.sync()
        // A unlinks Persuasion first; B, not having seen it, moves Persuasion to the front.
        try a.change { context in
            let books = try context.fetch(FetchDescriptor<ReplicatedBook>(sortBy: [SortDescriptor(\.title)]))
            books[1].author = nil
        }
        try await Task.sleep(for: .milliseconds(3))
        try b.change { context in
            let austen = try context.fetch(FetchDescriptor<ReplicatedAuthor>()).first!
            #expect(austen.books.map(\.title) == ["Emma", "Persuasion"])
            austen.books.insert(austen.books.removeLast(), at: 0)
        }
        for _ in 0..<2 { for replica in [a, b] { try await replica.engine.sync() } }
        #expect(try a.contents().books.sorted() == ["Emma|100|Austen|-1.0", "Persuasion|100|-|-1.0"])
        #expect(try b.contents() == a.contents())
    }

    /// Books added to one author on two replicas, and the author's list reordered on a third:
    /// every replica ends with the newest order written, then the books it does not name by the
    /// time they were linked.
    @Test(arguments: [false, true]) func aListHasOneOrderOnEveryReplica(reorderedLast: Bool) async throws {
        let server = InMemorySyncServer()
        let (a, b, c) = (try TestReplica(server: server), try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            let austen = ReplicatedAuthor(name: "Austen")
            context.insert(austen)
            austen.books = [ReplicatedBook(title: "Emma"), ReplicatedBook(title: "Persuasion")]
        }
        for replica in [a, b, c] { try await replica.engine.sync() }
        func austen(_ context: ModelContext) throws -> ReplicatedAuthor {
            try context.fetch(FetchDescriptor<ReplicatedAuthor>()).first!
        }
        try b.change { context in ReplicatedBook(title: "Sanditon", author: try austen(context)).pages = 1 }
        try await Task.sleep(for: .milliseconds(3))
        try c.change { context in try austen(context).books.append(ReplicatedBook(title: "Mansfield Park")) }
        try await Task.sleep(for: .milliseconds(3))
        if reorderedLast { try a.change { context in try austen(context).books.reverse() } }
        for _ in 0..<2 { for replica in [b, c, a] { try await replica.engine.sync() } }
        let expected =
            reorderedLast
            ? "Austen: [\"Persuasion\", \"Emma\", \"Sanditon\", \"Mansfield Park\"]"
            : "Austen: [\"Emma\", \"Persuasion\", \"Mansfield Park\", \"Sanditon\"]"
        for replica in [a, b, c] { #expect(try replica.contents().orders == [expected]) }
    }

    @Test func aNewReplicaReadsTheSnapshotAndOneBehindTheCompactedFeedToo() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try await b.engine.sync()
        for round in 0..<5 {
            try a.change { context in
                let author = ReplicatedAuthor(name: "Author \(round)")
                for index in 0..<4 { context.insert(ReplicatedBook(title: "Book \(round)-\(index)", author: author)) }
            }
            try await a.engine.sync()
        }
        await server.compact(zone: "default", through: 4)
        let c = try TestReplica(server: server)
        let report = try await c.engine.sync()
        #expect(report.pulled == 25)
        try await b.engine.sync()
        let (onA, onB, onC) = (try a.contents(), try b.contents(), try c.contents())
        #expect(onA.books.count == 20)
        #expect(onC == onA)
        #expect(onB == onA)
    }

    @Test func aTokenReachesOnlyItsZones() async throws {
        let server = InMemorySyncServer()
        await server.addToken("alice", zones: ["alice"])
        let transport = InProcessSyncTransport(server: server, token: "alice")
        await #expect(throws: SyncProtocolError.self) {
            _ = try await transport.changes(zone: "bob", after: 0, limit: 10, wait: nil)
        }
        let stranger = InProcessSyncTransport(server: server, token: "mallory")
        await #expect(throws: SyncProtocolError.self) {
            _ = try await stranger.snapshot(zone: "alice", after: nil, limit: 10)
        }
        _ = try await transport.changes(zone: "alice", after: 0, limit: 10, wait: nil)
    }
}
