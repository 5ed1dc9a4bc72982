// Writes the sync format fixture: two replicas' stores and the feed of the server they synced
// through, built against one commit of Cairn by `Scripts/make-format-fixture --sync`, so that the
// stores' sync tables (row states, outbox, positions) are in the format of that commit. It uses
// only the API every format version of sync has had (SyncEngine over an InProcessSyncTransport to
// an InMemorySyncServer). Keep it so: Tests/CairnTests/Sync/SyncFormatFixtureTests.swift declares
// the same models and expects exactly what this writes.
//
// a/data.mdb and b/data.mdb are the replicas; feed holds the batches the server kept, each a
// big-endian UInt32 length and a StoredBatch in the sync wire format, in the order of their
// positions. Each replica also holds a change it saved and has not pushed.
import Cairn
import CairnSync
import Foundation

@Model final class FixtureShelf {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \FixtureVolume.shelf) var volumes: [FixtureVolume] = []

    init(label: String) { self.label = label }
}

@Model final class FixtureVolume {
    var title: String
    var pages: Int
    var shelf: FixtureShelf?

    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// Passes every call to the server and keeps every batch it stored, with its position.
final class RecordingTransport: SyncTransport, @unchecked Sendable {
    let inner: InProcessSyncTransport
    private let lock = NSLock()
    private var stored: [StoredBatch] = []

    init(server: InMemorySyncServer) { inner = InProcessSyncTransport(server: server) }

    var batches: [StoredBatch] { lock.withLock { stored.sorted { $0.position < $1.position } } }

    func push(_ batch: ChangeBatch, zone: String) async throws -> PushResult {
        let result = try await inner.push(batch, zone: zone)
        if !result.duplicate { lock.withLock { stored.append(StoredBatch(position: result.position, batch: batch)) } }
        return result
    }

    func changes(zone: String, after: Int64, limit: Int, wait: Duration?) async throws -> ChangesPage {
        try await inner.changes(zone: zone, after: after, limit: limit, wait: wait)
    }

    func snapshot(zone: String, after: SyncID?, limit: Int) async throws -> SnapshotPage {
        try await inner.snapshot(zone: zone, after: after, limit: limit)
    }
}

let output = URL(fileURLWithPath: CommandLine.arguments[1])
let server = InMemorySyncServer()
let transport = RecordingTransport(server: server)
let configuration = SyncConfiguration(server: URL(string: "http://unused.invalid")!, token: "", zone: "default")

@MainActor func replica(_ name: String) throws -> (ModelContainer, SyncEngine) {
    let url = output.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    let container = try ModelContainer(
        for: FixtureShelf.self, FixtureVolume.self, configurations: ModelConfiguration(url: url))
    return (container, try SyncEngine(container: container, configuration: configuration, transport: transport))
}

@MainActor func change(_ container: ModelContainer, _ body: (ModelContext) throws -> Void) async throws {
    let context = ModelContext(container)
    try body(context)
    try context.save()
    try await Task.sleep(for: .milliseconds(5))  // each change a later stamp than the one before
}

@MainActor func volume(_ title: String, _ context: ModelContext) throws -> FixtureVolume {
    try context.fetch(FetchDescriptor<FixtureVolume>()).first { $0.title == title }!
}

@MainActor func shelf(_ context: ModelContext) throws -> FixtureShelf {
    try context.fetch(FetchDescriptor<FixtureShelf>()).first!
}

let (a, engineA) = try replica("a")
let (b, engineB) = try replica("b")
try await change(a) { context in
    let novels = FixtureShelf(label: "Novels")
    context.insert(novels)
    novels.volumes = [
        FixtureVolume(title: "Emma", pages: 474), FixtureVolume(title: "Persuasion", pages: 249),
        FixtureVolume(title: "Frankenstein", pages: 280),
    ]
}
try await engineA.sync()
try await engineB.sync()
try await change(b) { context in
    let novels = try shelf(context)
    novels.volumes = novels.volumes.sorted { $0.title > $1.title }  // Persuasion, Frankenstein, Emma
    try volume("Persuasion", context).pages = 250
}
try await engineB.sync()
try await engineA.sync()
// Saved and not pushed: a volume added and a title changed on A, a volume deleted on B.
try await change(a) { context in
    try shelf(context).volumes.append(FixtureVolume(title: "Lodore", pages: 310))
    try volume("Emma", context).title = "Emma (1815)"
}
try await change(b) { context in context.delete(try volume("Persuasion", context)) }

var feed = Data()
for stored in transport.batches {
    let bytes = SyncWire.encode(stored)
    withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { feed.append(contentsOf: $0) }
    feed.append(contentsOf: bytes)
}
try feed.write(to: output.appendingPathComponent("feed"))
print("wrote \(output.path): \(transport.batches.count) batches")
