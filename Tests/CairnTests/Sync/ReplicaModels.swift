import Cairn
import CairnSync
import Foundation

// Models the sync tests replicate: a one-to-many pair with a cascade, a to-one without an
// inverse, a many-to-many pair, a unique key, and values in external storage.

@Model final class ReplicatedAuthor {
    var name: String
    var born: Int
    @Relationship(deleteRule: .cascade, inverse: \ReplicatedBook.author) var books: [ReplicatedBook] = []

    init(name: String, born: Int = 1900) {
        self.name = name
        self.born = born
    }
}

@Model final class ReplicatedBook {
    var title: String
    var pages: Int
    var published: Date?
    var author: ReplicatedAuthor?
    @Relationship(inverse: \ReplicatedShelf.books) var shelves: [ReplicatedShelf] = []

    init(title: String, pages: Int = 100, author: ReplicatedAuthor? = nil) {
        self.title = title
        self.pages = pages
        self.author = author
    }
}

@Model final class ReplicatedShelf {
    var label: String
    var books: [ReplicatedBook] = []
    var favourite: ReplicatedBook?

    init(label: String) { self.label = label }
}

@Model final class ReplicatedTag {
    @Attribute(.unique) var name: String
    var uses: Int

    init(name: String, uses: Int) {
        self.name = name
        self.uses = uses
    }
}

@Model final class ReplicatedPhoto {
    var caption: String
    @Attribute(.externalStorage) var data: Data
    @Attribute(.externalStorage) var thumbnail: Data?

    init(caption: String, data: Data, thumbnail: Data? = nil) {
        self.caption = caption
        self.data = data
        self.thumbnail = thumbnail
    }
}

/// One replica for a test: a store of its own and its engine, on a server shared by the test.
struct TestReplica {
    let container: ModelContainer
    let engine: SyncEngine
    let directory: TemporaryDirectory

    init(
        server: InMemorySyncServer, zone: String = "default", faults: InProcessSyncTransport.Faults = .init(),
        configure: (inout SyncConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "", zone: zone)
        configure(&configuration)
        try self.init(configuration, transport: InProcessSyncTransport(server: server, faults: faults))
    }

    /// A replica syncing over HTTP with a real server.
    init(server: URL, token: String, zone: String = "default", encryption: ModelConfiguration.Encryption? = nil) throws {
        try self.init(SyncConfiguration(server: server, token: token, zone: zone, encryption: encryption), transport: nil)
    }

    /// A replica syncing through `transport`.
    init(_ configuration: SyncConfiguration, transport: (any SyncTransport)?) throws {
        directory = TemporaryDirectory()
        container = try makeContainer(
            ReplicatedAuthor.self, ReplicatedBook.self, ReplicatedShelf.self, ReplicatedTag.self, ReplicatedPhoto.self,
            in: directory)
        engine = try SyncEngine(container: container, configuration: configuration, transport: transport)
    }

    /// Runs `body` in a new context of the replica and saves it.
    func change(_ body: (ModelContext) throws -> Void) throws {
        let context = ModelContext(container)
        try body(context)
        try context.save()
    }

    /// The replica's rows, as values to compare across replicas.
    func contents() throws -> ReplicaContents {
        let context = ModelContext(container)
        let authors = try context.fetch(FetchDescriptor<ReplicatedAuthor>())
        let books = try context.fetch(FetchDescriptor<ReplicatedBook>())
        let shelves = try context.fetch(FetchDescriptor<ReplicatedShelf>())
        let tags = try context.fetch(FetchDescriptor<ReplicatedTag>())
        return ReplicaContents(
            tags: Set(tags.map { "\($0.name)|\($0.uses)" }),
            authors: Set(authors.map { "\($0.name)|\($0.born)|\($0.books.map(\.title).sorted())" }),
            books: Set(books.map { "\($0.title)|\($0.pages)|\($0.author?.name ?? "-")|\($0.published?.timeIntervalSince1970 ?? -1)" }),
            shelves: Set(shelves.map { "\($0.label)|\($0.books.map(\.title).sorted())|\($0.favourite?.title ?? "-")" }),
            orders: Set(authors.map { "\($0.name): \($0.books.map(\.title))" } + shelves.map { "\($0.label): \($0.books.map(\.title))" }))
    }
}

/// What a replica holds, as sets of descriptions (row identity aside).
struct ReplicaContents: Equatable, CustomStringConvertible {
    var tags: Set<String> = []
    var authors: Set<String>
    var books: Set<String>
    var shelves: Set<String>
    /// Each author's and shelf's list of books, in its order.
    var orders: Set<String> = []

    /// The same without the lists' orders (which a reference merge does not compute).
    var withoutOrders: ReplicaContents {
        var contents = self
        contents.orders = []
        return contents
    }

    var description: String {
        "tags \(tags.sorted())\nauthors \(authors.sorted())\nbooks \(books.sorted())\nshelves \(shelves.sorted())\norders \(orders.sorted())"
    }
}
