import Cairn
import CairnSync
import CairnSyncProtocol
import Foundation
import Testing

@Suite struct SyncEngineTests {
    @Test func anInsertReachesAnotherReplica() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            let author = ReplicatedAuthor(name: "Le Guin", born: 1929)
            context.insert(ReplicatedBook(title: "The Dispossessed", pages: 387, author: author))
        }
        let pushed = try await a.engine.sync()
        #expect(pushed.pushed == 2)
        let pulled = try await b.engine.sync()
        #expect(pulled.pulled == 2)
        #expect(try b.contents() == a.contents())
        #expect(try b.contents().books == ["The Dispossessed|387|Le Guin|-1.0"])
    }

    @Test func concurrentEditsOfDifferentFieldsBothSurvive() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { $0.insert(ReplicatedBook(title: "Draft", pages: 10)) }
        try await a.engine.sync()
        try await b.engine.sync()
        try a.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.title = "Final" }
        try b.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = 99 }
        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(try a.contents().books == ["Final|99|-|-1.0"])
        #expect(try b.contents() == a.contents())
    }

    @Test func theLaterWriteOfOneFieldWinsEverywhere() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { $0.insert(ReplicatedBook(title: "Draft")) }
        try await a.engine.sync()
        try await b.engine.sync()
        try a.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.title = "From A" }
        try await Task.sleep(for: .milliseconds(5))
        try b.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.title = "From B" }
        try await b.engine.sync()
        let report = try await a.engine.sync()
        try await b.engine.sync()
        #expect(report.conflictsResolved == 1)
        #expect(try a.contents().books == ["From B|100|-|-1.0"])
        #expect(try b.contents() == a.contents())
    }

    @Test func aDeleteWinsOverAConcurrentUpdateAndCascades() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            let author = ReplicatedAuthor(name: "Borges")
            context.insert(ReplicatedBook(title: "Ficciones", author: author))
        }
        try await a.engine.sync()
        try await b.engine.sync()
        try a.change { context in try context.delete(context.fetch(FetchDescriptor<ReplicatedAuthor>()).first!) }
        try b.change { context in try context.fetch(FetchDescriptor<ReplicatedBook>()).first!.pages = 5 }
        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()
        #expect(try a.contents() == ReplicaContents(authors: [], books: [], shelves: []))
        #expect(try b.contents() == a.contents())
    }

    @Test func booksAddedToOneAuthorOnTwoReplicasBothStay() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { $0.insert(ReplicatedAuthor(name: "Calvino")) }
        try await a.engine.sync()
        try await b.engine.sync()
        for (replica, title) in [(a, "Invisible Cities"), (b, "If on a winters night")] {
            try replica.change { context in
                let author = try context.fetch(FetchDescriptor<ReplicatedAuthor>()).first!
                author.books.append(ReplicatedBook(title: title))
            }
        }
        try await a.engine.sync()
        try await b.engine.sync()
        try await a.engine.sync()
        let (onA, onB) = (try a.contents(), try b.contents())
        #expect(onA.authors == ["Calvino|1900|[\"If on a winters night\", \"Invisible Cities\"]"])
        #expect(onB == onA)
    }

    @Test func manyToManyAndAToOneWithoutInverseTravel() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { context in
            let shelf = ReplicatedShelf(label: "Favourites")
            let book = ReplicatedBook(title: "Solaris")
            context.insert(shelf)
            shelf.books = [book, ReplicatedBook(title: "Roadside Picnic")]
            shelf.favourite = book
        }
        try await a.engine.sync()
        try await b.engine.sync()
        #expect(try b.contents().shelves == ["Favourites|[\"Roadside Picnic\", \"Solaris\"]|Solaris"])
        #expect(try b.contents() == a.contents())
    }

    @Test func savesMadeBySyncCarryTheirOwnAuthor() async throws {
        let server = InMemorySyncServer()
        let (a, b) = (try TestReplica(server: server), try TestReplica(server: server))
        try a.change { $0.insert(ReplicatedAuthor(name: "Lem")) }
        try await a.engine.sync()
        try await b.engine.sync()
        let transactions = try ModelContext(b.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.map(\.author) == ["cairn.sync"])
    }

    @Test func lostAnswersAndRepeatedPushesApplyOnce() async throws {
        let server = InMemorySyncServer()
        var faults = InProcessSyncTransport.Faults()
        faults.dropAnswers = 0.3
        faults.duplicatePushes = 0.5
        faults.reorderPushes = 0.2
        faults.seed = 7
        let (a, b) = (try TestReplica(server: server, faults: faults), try TestReplica(server: server, faults: faults))
        for round in 0..<6 {
            try a.change { $0.insert(ReplicatedBook(title: "A\(round)", pages: round)) }
            try b.change { $0.insert(ReplicatedBook(title: "B\(round)", pages: round)) }
            for replica in [a, b] { _ = try? await replica.engine.sync() }
        }
        for _ in 0..<40 {
            for replica in [a, b] { _ = try? await replica.engine.sync() }
            if try a.contents() == b.contents(), try a.contents().books.count == 12 { break }
        }
        #expect(try a.contents().books.count == 12)
        #expect(try b.contents() == a.contents())
    }
}
