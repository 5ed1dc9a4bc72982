import Cairn
import CairnSync
import Foundation
import Testing

/// Three replicas make random offline edits — inserts, updates of either field, deletes,
/// relationship changes, unique collisions — and sync in random orders; at the end every replica
/// holds the same rows, and those are what a reference merge computes from the edits: each field
/// keeps its last write, a deleted row stays deleted, rows with one unique value are one.
/// Edits are made at least two milliseconds apart, so the order of their clocks is the order the
/// test made them in. `CAIRN_SYNC_SEED` replays one case.
@Suite struct SyncConvergenceProperties {
    @Test func threeReplicasConvergeToTheReferenceMerge() async throws {
        let seeds: [UInt64] =
            ProcessInfo.processInfo.environment["CAIRN_SYNC_SEED"].flatMap(UInt64.init).map { [$0] }
            ?? (0..<PropertyScale.count(6)).map { _ in UInt64.random(in: 0...UInt64.max) }
        for seed in seeds {
            try await runCase(seed: seed)
        }
    }

    /// The same through transports that drop requests and answers, deliver pushes twice and hold
    /// pushes back to deliver them after newer messages, each replica's faults seeded from the
    /// case's seed (`CAIRN_SYNC_FAULT_CASE` replays one).
    @Test func threeReplicasConvergeThroughAFaultyNetwork() async throws {
        let seeds: [UInt64] =
            ProcessInfo.processInfo.environment["CAIRN_SYNC_FAULT_CASE"].flatMap(UInt64.init).map { [$0] }
            ?? (0..<PropertyScale.count(4)).map { _ in UInt64.random(in: 0...UInt64.max) }
        for seed in seeds {
            try await runCase(seed: seed, faulty: true)
        }
    }

    private var debug: Bool { ProcessInfo.processInfo.environment["CAIRN_SYNC_DEBUG"] != nil }

    private func runCase(seed: UInt64, faulty: Bool = false) async throws {
        var random = SeededGenerator(seed: seed)
        let server = InMemorySyncServer()
        let replicas = try (0..<3).map { index in
            try TestReplica(server: server, faults: faulty ? Self.faults(seed: seed &+ UInt64(index)) : .init())
        }
        var reference = ReferenceMerge()
        for step in 0..<24 {
            let which = Int.random(in: 0..<3, using: &random)
            if Int.random(in: 0..<4, using: &random) == 0 {
                _ = try? await replicas[which].engine.sync()
                if debug { print("DBG step \(step) sync \(which): \(try replicas[which].contents().tags.sorted())") }
                continue
            }
            if debug { print("DBG step \(step) edit on \(which)") }
            try await Task.sleep(for: .milliseconds(2))
            try edit(replicas[which], step: step, random: &random, reference: &reference)
        }
        // Three rounds in which each replica syncs until a sync succeeds (on a faulty network,
        // about half do).
        for _ in 0..<3 {
            for (index, replica) in replicas.enumerated() {
                var report: SyncReport?
                for _ in 0..<100 where report == nil { report = try? await replica.engine.sync() }
                #expect(report != nil, "seed \(seed): replica \(index)'s syncs kept failing")
                if debug { print("DBG final sync \(index) \(String(describing: report)): \(try replica.contents().tags.sorted())") }
            }
        }
        let contents = try replicas.map { try $0.contents() }
        #expect(contents[1] == contents[0], "seed \(seed): replicas 0 and 1 differ")
        #expect(contents[2] == contents[0], "seed \(seed): replicas 0 and 2 differ")
        #expect(contents[0].withoutOrders == reference.contents, "seed \(seed): the replicas differ from the reference merge")
    }

    static func faults(seed: UInt64) -> InProcessSyncTransport.Faults {
        var faults = InProcessSyncTransport.Faults()
        faults.dropRequests = 0.1
        faults.dropAnswers = 0.15
        faults.duplicatePushes = 0.2
        faults.reorderPushes = 0.2
        faults.seed = seed
        return faults
    }

    /// One random edit on `replica`, of what it holds now, recorded in the reference.
    private func edit(
        _ replica: TestReplica, step: Int, random: inout SeededGenerator, reference: inout ReferenceMerge
    ) throws {
        let context = ModelContext(replica.container)
        let books = try context.fetch(FetchDescriptor<ReplicatedBook>(sortBy: [SortDescriptor(\.title)]))
        let authors = try context.fetch(FetchDescriptor<ReplicatedAuthor>(sortBy: [SortDescriptor(\.name)]))
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where !authors.isEmpty || Bool.random(using: &random):
            let title = "b\(step)"
            let book = ReplicatedBook(title: title, pages: step)
            context.insert(book)
            if let author = authors.randomElement(using: &random) { book.author = author }
            try context.save()
            if debug { print("DBG   insert \(title) author \(book.author?.name ?? "nil")") }
            reference.insertBook(title, pages: step, author: book.author?.name)
        case 0, 1:
            let name = "a\(step)"
            context.insert(ReplicatedAuthor(name: name, born: step))
            try context.save()
            reference.insertAuthor(name, born: step)
        case 2 where !books.isEmpty:
            let book = books.randomElement(using: &random)!
            book.pages = 1000 + step
            try context.save()
            if debug { print("DBG   \(book.title).pages = \(1000 + step)") }
            reference.set(book.title, pages: 1000 + step)
        case 3 where !books.isEmpty && !authors.isEmpty:
            let book = books.randomElement(using: &random)!
            let author = Bool.random(using: &random) ? authors.randomElement(using: &random) : nil
            // Setting what the replica already holds is no write: nothing to sync.
            guard book.author?.name != author?.name else { return }
            // Either side of the pair: the book's author, or the author's list of books.
            if Bool.random(using: &random) {
                book.author = author
            } else if let author {
                author.books.append(book)
            } else {
                book.author?.books.removeAll { $0 === book }
            }
            try context.save()
            if debug { print("DBG   \(book.title).author = \(author?.name ?? "nil")") }
            reference.set(book.title, author: author?.name)
        case 4 where !books.isEmpty:
            let book = books.randomElement(using: &random)!
            context.delete(book)
            try context.save()
            reference.deleteBook(book.title)
        case 5:
            let name = ["red", "green", "blue"].randomElement(using: &random)!
            if let tag = try context.fetch(FetchDescriptor<ReplicatedTag>(predicate: #Predicate { $0.name == name })).first {
                tag.uses = step
            } else {
                context.insert(ReplicatedTag(name: name, uses: step))
            }
            try context.save()
            if debug { print("DBG   tag \(name) = \(step)") }
            reference.setTag(name, uses: step)
        case 6...9:
            try editLists(context, step: step, random: &random, reference: &reference)
        default:
            let name = "a\(step)"
            context.insert(ReplicatedAuthor(name: name, born: step))
            try context.save()
            reference.insertAuthor(name, born: step)
        }
    }

    /// One random edit of shelves and lists: a new shelf, a book put on or taken off a shelf
    /// (through either side of the pair), or a list reordered.
    private func editLists(
        _ context: ModelContext, step: Int, random: inout SeededGenerator, reference: inout ReferenceMerge
    ) throws {
        let books = try context.fetch(FetchDescriptor<ReplicatedBook>(sortBy: [SortDescriptor(\.title)]))
        let shelves = try context.fetch(FetchDescriptor<ReplicatedShelf>(sortBy: [SortDescriptor(\.label)]))
        let authors = try context.fetch(FetchDescriptor<ReplicatedAuthor>(sortBy: [SortDescriptor(\.name)]))
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where !books.isEmpty && !shelves.isEmpty:
            let (book, shelf) = (books.randomElement(using: &random)!, shelves.randomElement(using: &random)!)
            let onIt = shelf.books.contains { $0 === book }
            switch (onIt, Bool.random(using: &random)) {
            case (true, true): shelf.books.removeAll { $0 === book }
            case (true, false): book.shelves.removeAll { $0 === shelf }
            case (false, true): shelf.books.append(book)
            case (false, false): book.shelves.append(shelf)
            }
            try context.save()
            if debug { print("DBG   \(book.title).shelves = \(book.shelves.map(\.label))") }
            reference.set(book.title, shelves: Set(book.shelves.map(\.label)))
        case 1 where authors.contains { $0.books.count > 1 }:
            let author = authors.filter { $0.books.count > 1 }.randomElement(using: &random)!
            author.books.insert(author.books.removeLast(), at: 0)
            try context.save()
            if debug { print("DBG   \(author.name).books = \(author.books.map(\.title))") }
        case 2 where shelves.contains { $0.books.count > 1 }:
            let shelf = shelves.filter { $0.books.count > 1 }.randomElement(using: &random)!
            shelf.books.insert(shelf.books.removeLast(), at: 0)
            try context.save()
        default:
            let label = "s\(step)"
            context.insert(ReplicatedShelf(label: label))
            try context.save()
            reference.insertShelf(label)
        }
    }
}

/// The rows the edits amount to, by the rules of `Docs/Sync.md`: the last write of each field
/// wins, a delete wins over any write, rows with the same unique value are one row.
struct ReferenceMerge {
    private var authors: [String: Int] = [:]
    private var books: [String: (pages: Int, author: String?, shelves: Set<String>)] = [:]
    private var shelves: Set<String> = []
    private var deleted: Set<String> = []
    private var tags: [String: Int] = [:]

    mutating func insertAuthor(_ name: String, born: Int) { authors[name] = born }
    mutating func insertBook(_ title: String, pages: Int, author: String?) { books[title] = (pages, author, []) }
    mutating func insertShelf(_ label: String) { shelves.insert(label) }
    mutating func set(_ title: String, shelves: Set<String>) { books[title]?.shelves = shelves }
    mutating func set(_ title: String, pages: Int) { books[title]?.pages = pages }
    mutating func set(_ title: String, author: String?) { books[title]?.author = author }
    mutating func deleteBook(_ title: String) { deleted.insert(title) }
    mutating func setTag(_ name: String, uses: Int) { tags[name] = uses }

    var contents: ReplicaContents {
        let living = books.filter { !deleted.contains($0.key) }
        return ReplicaContents(
            tags: Set(tags.map { "\($0.key)|\($0.value)" }),
            authors: Set(authors.map { name, born in
                "\(name)|\(born)|\(living.filter { $0.value.author == name }.map(\.key).sorted())"
            }),
            books: Set(living.map { "\($0.key)|\($0.value.pages)|\($0.value.author ?? "-")|-1.0" }),
            shelves: Set(shelves.map { label in
                "\(label)|\(living.filter { $0.value.shelves.contains(label) }.map(\.key).sorted())|-"
            }))
    }
}
