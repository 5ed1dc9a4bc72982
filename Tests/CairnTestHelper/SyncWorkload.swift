// The sync fault tests' client: a replica in a process of its own, so that a test can kill it
// (SIGKILL) in the middle of a push or a pull and start it again on the same store.
import Cairn
import CairnSync
import Foundation

/// A folder whose unique name two replicas may both create: sync merges them into one.
@Model final class SyncedFolder {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \SyncedNote.folder) var notes: [SyncedNote] = []

    init(name: String) { self.name = name }
}

@Model final class SyncedNote {
    var text: String
    var rank: Int
    var folder: SyncedFolder?

    init(text: String, rank: Int, folder: SyncedFolder?) {
        self.text = text
        self.rank = rank
        self.folder = folder
    }
}

enum SyncWorkload {
    /// `sync-client <store> <server-url> <token> <first> <count>`: inserts notes `first..<first+count`
    /// fifty to a save, "ack N" after each save (N: the notes saved so far), syncing after each;
    /// then syncs once more and prints "synced", each row as "row …" and "done".
    static func run(_ arguments: [String]) {
        guard arguments.count == 7, let server = URL(string: arguments[3]), let first = Int(arguments[5]),
            let count = Int(arguments[6])
        else { fail("usage: sync-client <store> <server-url> <token> <first> <count>") }
        let container = step("open") {
            try ModelContainer(
                for: SyncedNote.self, SyncedFolder.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[2])))
        }
        var configuration = SyncConfiguration(server: server, token: arguments[4])
        configuration.batchSize = 100
        let engine = step("engine") { try SyncEngine(container: container, configuration: configuration) }
        let finished = DispatchSemaphore(value: 0)
        Task {
            do {
                try await insertAndSync(container, engine: engine, notes: first..<(first + count))
                try await engine.sync()
                say("synced")
                for row in try rows(container) { say("row " + row) }
                say("done")
            } catch {
                say("error sync \(error)")
            }
            finished.signal()
        }
        finished.wait()
    }

    private static func insertAndSync(_ container: ModelContainer, engine: SyncEngine, notes: Range<Int>) async throws {
        let context = ModelContext(container)
        for start in stride(from: notes.lowerBound, to: notes.upperBound, by: 50) {
            for index in start..<min(start + 50, notes.upperBound) {
                let name = "folder-\(index % 7)"
                let folder =
                    try context.fetch(FetchDescriptor<SyncedFolder>(predicate: #Predicate { $0.name == name })).first
                    ?? SyncedFolder(name: name)
                context.insert(SyncedNote(text: "note-\(index)", rank: index, folder: folder))
            }
            try context.save()
            say("ack \(min(start + 50, notes.upperBound))")
            try await engine.sync()
        }
    }

    /// Notes as `text|rank|folder`, folders as `name|notes`.
    private static func rows(_ container: ModelContainer) throws -> [String] {
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<SyncedNote>()).map { "\($0.text)|\($0.rank)|\($0.folder?.name ?? "-")" }
        let folders = try context.fetch(FetchDescriptor<SyncedFolder>()).map { "\($0.name)|\($0.notes.count)" }
        return (notes + folders).sorted()
    }
}
