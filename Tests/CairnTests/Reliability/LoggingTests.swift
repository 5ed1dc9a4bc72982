import Foundation
import Logging
import Synchronization
import Testing

@testable import Cairn
@testable import CairnStorage

/// What Cairn says through swift-log when something happened that the app should hear about even
/// though nothing threw.
@Suite struct LoggingTests {
    @Test func aRecoveryAtOpenIsLoggedAsAWarning() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        do {
            let environment = try LMDBEnvironment.create(StorageConfiguration(path: path))
            let table = try environment.openTable("t", create: true)!
            for n in 0..<3 { try environment.write { txn in try txn.put([UInt8(n)], for: [UInt8(n)], in: table) } }
        }
        // Damage the newest meta page's main root: the store opens at the commit before.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
        let offsets = MetaPage.Offset.self
        let id0 = DataFileBytes(storage: bytes).uint64(at: offsets.transactionID)
        let id1 = DataFileBytes(storage: bytes).uint64(at: 4096 + offsets.transactionID)
        let newest = id1 > id0 ? 4096 : 0
        bytes[newest + offsets.mainDB + 40] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path + "/data.mdb"))

        let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
        let recovery = try #require(environment.recovery)
        let logged = LogCapture.messages.filter { $0.level == .warning && $0.text.contains(environment.path) }
        #expect(
            logged.contains { $0.text.contains("skipped") && $0.text.contains("\(recovery.openedTransaction)") },
            "\(logged)")
    }

    @Test func aFailedLoadIsLoggedAsAWarning() throws {
        LogCapture.install()
        let container = try libraryContainer(TemporaryDirectory())
        let context = ModelContext(container)
        context.insert(LibraryBook(isbn: "log-1", title: "Logged"))
        try context.save()
        let id = try #require(try context.fetch(FetchDescriptor<LibraryBook>()).first).persistentModelID
        let records = try #require(container.store.entities["LibraryBook"]).layout.records
        try container.store.environment.write { txn in
            var record = try #require(try txn.get(EntryLayout.rowKey(id.rowID!), in: records))
            record[3] ^= 0x20
            try txn.put(record, for: EntryLayout.rowKey(id.rowID!), in: records)
        }
        let fresh = ModelContext(container)
        _ = (fresh.model(for: id) as? LibraryBook)?.title
        #expect(
            LogCapture.messages.contains {
                $0.level == .warning && $0.text.contains("\(id)") && $0.text.contains("could not be loaded")
            })
    }
}

extension LoggingTests {
    @Test func aSlowFetchIsLoggedWithItsPlan() throws {
        LogCapture.install()
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: TemporaryDirectory().child("Slow.store")))
        configuration.slowFetchThreshold = .zero  // every fetch is slow
        let container = try ModelContainer(for: LibraryBook.self, configurations: configuration)
        let context = ModelContext(container)
        context.insert(LibraryBook(isbn: "slow-1", title: "Slow"))
        try context.save()
        _ = try context.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.title == "Slow" }))
        let logged = LogCapture.messages.filter { $0.level == .notice && $0.text.contains("Slow fetch of LibraryBook") }
        #expect(logged.contains { $0.text.contains("Plan:") && $0.text.contains("for 1 models") }, "\(logged)")
    }
}

/// Captures every message logged in the test process (swift-log allows one bootstrap per process).
enum LogCapture {
    struct Message: Sendable {
        var level: Logger.Level
        var text: String
    }

    private static let captured = Mutex<[Message]>([])
    private static let installation: Void = LoggingSystem.bootstrap { _ in Handler() }

    static func install() { _ = installation }

    static var messages: [Message] { captured.withLock { $0 } }

    struct Handler: LogHandler {
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            LogCapture.captured.withLock { $0.append(Message(level: event.level, text: "\(event.message)")) }
        }
    }
}
