import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

#if canImport(Glibc)
import Glibc
#endif

/// The hostile suite's randomized tier: each case is drawn from a seed, printed when it fails,
/// and replayed with `CAIRN_HOSTILE_CASE=<seed>`. The quick tier runs a few dozen cases of each
/// class; `CAIRN_HOSTILE=long` runs hundreds.
///
/// - Planted files (links to files and directories, dangling links, FIFOs, sockets, devices,
///   directories) in place of a store's files, store directories with loose modes, and another
///   program's LMDB files, each met by the API (read-write or read-only) or a `cairn` command:
///   refused at once with the right code, nothing created, changed or deleted anywhere.
/// - Planted scratch and compaction directories beside a store: creating and compacting stores
///   goes ahead and deletes nothing through them.
/// - Unique `Double` values that are not equal to themselves, or equal without the same bits,
///   saved in random orders: the rows match a reference model (each NaN its own row; `-0.0` and
///   `0.0` one value; any other value's last insert wins).
/// - Count and size arguments from `Int.min` to `Int.max`: a result that matches the reference,
///   or a typed error; never a trap.
@Suite struct HostileFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let replayed = environment["CAIRN_HOSTILE_CASE"].flatMap(UInt64.init)
    static let casesPerClass = environment["CAIRN_HOSTILE"] == "long" ? 2_000 : 24

    static var seeds: [UInt64] {
        replayed.map { [$0] } ?? (0..<casesPerClass).map { _ in UInt64.random(in: 0...UInt64.max) }
    }

    @Test(.timeLimit(.minutes(30)))
    func plantedFilesAreRefusedAndNothingIsTouched() throws {
        for seed in Self.seeds { try PlantedFileCase(seed: seed).run() }
    }

    @Test(.timeLimit(.minutes(30)))
    func plantedScratchDirectoriesAreNeverFollowed() throws {
        for seed in Self.seeds { try PlantedScratchCase(seed: seed).run() }
    }

    @Test(.timeLimit(.minutes(30)))
    func uniqueDoublesFollowTheReferenceModel() throws {
        for seed in Self.seeds { try UniqueDoubleCase(seed: seed).run() }
    }

    @Test(.timeLimit(.minutes(30)))
    func countAndSizeArgumentsAreResultsOrTypedErrors() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(HostileNote.self, HostileShelf.self, HostileItem.self, in: directory, named: "A.store")
        let seeding = ModelContext(container)
        for n in 0..<7 { seeding.insert(HostileNote(text: "note \(n)")) }
        try seeding.save()
        for seed in Self.seeds { try ArgumentCase(seed: seed).run(container, stored: 7) }
    }
}

// MARK: - Planted files among a store's

/// A planted entry, a loose directory mode or another program's files, met by one operation.
struct PlantedFileCase: CustomStringConvertible {
    enum Setup {
        case entry(name: String, kind: EntryKind)
        case directoryMode(mode_t)
        case foreign(commits: Int)
    }

    enum EntryKind: CaseIterable {
        case fileLink, directoryLink, danglingLink, fifo, socket, device, directory
    }

    /// The API (read-only or not), or one of `CairnToolHostileTests.commands`.
    enum Operation {
        case open(readOnly: Bool)
        case tool(Int)
    }

    let seed: UInt64
    let setup: Setup
    let operation: Operation

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        switch Int.random(in: 0..<6, using: &random) {
        case 0..<4:
            var kind = EntryKind.allCases.randomElement(using: &random)!
            if kind == .device && geteuid() != 0 { kind = .fifo }  // mknod needs root; CI runs as root
            setup = .entry(name: Bool.random(using: &random) ? "data.mdb" : "lock.mdb", kind: kind)
        case 4: setup = .directoryMode(0o700 | mode_t.random(in: 0...0o077, using: &random))
        default: setup = .foreign(commits: Int.random(in: 1...6, using: &random))
        }
        operation =
            Bool.random(using: &random)
            ? .open(readOnly: Bool.random(using: &random))
            : .tool(Int.random(in: 0..<CairnToolHostileTests.commands.count, using: &random))
    }

    var description: String { "CAIRN_HOSTILE_CASE=\(seed): \(setup), \(operation)" }

    /// The code the API must refuse with, or nil when the store must open.
    var expectedCode: StorageError.Code? {
        switch setup {
        case .entry(_, .directory): .isDirectory
        case .entry: .unsafeFile
        case .directoryMode(let mode): mode & 0o022 == 0 ? nil : .unsafeFile
        case .foreign: .notAStore
        }
    }

    func run() throws {
        let directory = TemporaryDirectory("Hostile-\(seed)")
        let victim = try Victim(in: directory)
        let store = directory.child("Library.store")
        try plant(store, victim: victim, in: directory)
        let before = try TreeSnapshot(directory.path)
        let data = try? Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        try perform(store, scratch: directory.path)
        if case .directoryMode = setup { chmod(store, 0o700) }
        #expect(try TreeSnapshot(directory.path) == before, "\(self): entries were created, changed or removed")
        try victim.expectIntact()
        if expectedCode != nil, let data {
            #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == data, "\(self)")
        }
    }

    private func plant(_ store: String, victim: Victim, in directory: TemporaryDirectory) throws {
        switch setup {
        case .foreign(let commits): try ForeignEnvironment.write(at: store, commits: commits)
        case .directoryMode(let mode):
            try makeStore(at: store)
            #expect(chmod(store, mode) == 0)
        case .entry(let name, let kind):
            try makeStore(at: store)
            try replace(store + "/" + name) { path in
                switch kind {
                case .fileLink: try plantLink(path, to: victim.file)
                case .directoryLink: try plantLink(path, to: victim.directory)
                case .danglingLink: try plantLink(path, to: victim.directory + "/made-by-cairn")
                case .fifo: try SpecialFile.fifo.make(at: path)
                case .socket: try SpecialFile.socket.make(at: path)
                case .device: try SpecialFile.device.make(at: path)
                case .directory: try SpecialFile.directory.make(at: path)
                }
            }
        }
    }

    private func perform(_ store: String, scratch: String) throws {
        switch operation {
        case .open(let readOnly):
            let outcome = try withDeadline(seconds: 20) { () -> StorageError.Code? in
                do {
                    _ = try container(store, readOnly: readOnly)
                    return nil
                } catch let error as StorageError {
                    return error.code
                }
            }
            #expect(outcome == expectedCode, "\(self)")
        case .tool(let index):
            let command = CairnToolHostileTests.commands[index]
            let arguments = command.arguments(store, scratch)
            // A backup's destination is created only when the store opens; remove it again.
            defer { StoreFiles.removeDirectory(scratch + "/copy.store") }
            let run = try CairnTool.run(arguments, timeout: 30)
            #expect(!run.timedOut, "\(self): cairn \(arguments[0]) hangs")
            if expectedCode == nil {
                #expect(run.status == 0, "\(self): \(run.errors)")
            } else {
                #expect(run.status == command.status, "\(self): \(run.errors)")
            }
        }
    }
}

/// Every entry under a directory, examined without following links: its kind, and a regular
/// file's size and contents' checksum (files inside a store directory by size only, since an
/// opened store rewrites its lock file in place).
struct TreeSnapshot: Equatable {
    var entries: [String: String] = [:]

    init(_ root: String) throws {
        try walk(root, relative: "")
    }

    private mutating func walk(_ path: String, relative: String) throws {
        for name in StoreFiles.entries(of: path).sorted() {
            let child = path + "/" + name, key = relative + "/" + name
            let entry = FileEntry(at: child)
            switch entry {
            case .directory:
                entries[key] = "directory"
                try walk(child, relative: key)
            case .regularFile:
                let data = FileManager.default.contents(atPath: child) ?? Data()
                entries[key] = name.hasSuffix(".mdb") ? "file" : "file \(data.count) \(data.hashValue)"
            default:
                entries[key] = "\(entry)"
            }
        }
    }
}

// MARK: - Planted scratch directories

/// A link or a directory holding links, where a crashed process's scratch or compaction
/// directory would be; then a store is created or compacted beside it.
struct PlantedScratchCase: CustomStringConvertible {
    let seed: UInt64
    let isCompaction: Bool
    let isLinkInside: Bool
    let viaTool: Bool

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        isCompaction = Bool.random(using: &random)
        isLinkInside = Bool.random(using: &random)
        viaTool = Bool.random(using: &random)
    }

    var description: String {
        "CAIRN_HOSTILE_CASE=\(seed): \(isCompaction ? "compacting" : "creating") beside a planted "
            + "\(isLinkInside ? "directory of links" : "link")\(viaTool ? " with cairn" : "")"
    }

    func run() throws {
        let directory = TemporaryDirectory("Scratch-\(seed)")
        let victim = try Victim(in: directory)
        let store = directory.child("Library.store")
        if isCompaction { try makeStore(at: store) }
        let planted = directory.child(
            isCompaction ? ".Library.store.compacting-\(deadProcess)" : StoreFiles.scratchPrefix + "\(deadProcess)")
        if isLinkInside {
            #expect(mkdir(planted, 0o700) == 0)
            try plantLink(planted + "/data.mdb", to: victim.file)
            try plantLink(planted + "/lock.mdb", to: victim.directory)
        } else {
            try plantLink(planted, to: victim.directory)
        }
        if isCompaction && viaTool {
            let run = try CairnTool.run(["compact", store], timeout: 60)
            #expect(run.status == 0 && !run.timedOut, "\(self): \(run.errors)")
        } else if isCompaction {
            _ = try StoreCompaction.compact(StorageConfiguration(path: store))
        } else {
            try makeStore(at: store)
        }
        try victim.expectIntact()
        #expect(FileEntry(at: planted) == (isLinkInside ? .missing : .symbolicLink), "\(self)")
        #expect(try ModelContext(container(store, readOnly: true)).fetchCount(FetchDescriptor<HostileNote>()) == 1)
    }
}

// MARK: - Unique values

/// Saves of a unique `Double` drawn from values that are not equal to themselves, or equal with
/// other bits, against a reference: NaNs each keep a row; `-0.0` and `0.0` are one value; the
/// last insert of any other value wins.
struct UniqueDoubleCase: CustomStringConvertible {
    static let pool: [Double] = [
        notANumber(), -notANumber(), Double(bitPattern: 0x7FF0_0000_0000_0001), -0.0, 0.0, 1.5, -1.5, .infinity,
        -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
    ]

    let seed: UInt64
    let values: [Double]
    let savesEach: Bool

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        values = (0..<Int.random(in: 1...12, using: &random)).map { _ in Self.pool.randomElement(using: &random)! }
        savesEach = Bool.random(using: &random)
    }

    var description: String { "CAIRN_HOSTILE_CASE=\(seed): \(values) \(savesEach ? "saved one by one" : "in one save")" }

    func run() throws {
        let container = try makeContainer(inMemory: NaNReading.self)
        let context = ModelContext(container)
        var reference: [Double: String] = [:]
        var notANumbers: [String] = []
        for (n, value) in values.enumerated() {
            context.insert(NaNReading(value, note: "\(n)"))
            if value.isNaN { notANumbers.append("\(n)") } else { reference[value == 0 ? 0 : value] = "\(n)" }
            if savesEach { try context.save() }
        }
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<NaNReading>())
        #expect(stored.count == reference.count + notANumbers.count, "\(self): \(stored.map(\.value))")
        #expect(stored.filter(\.value.isNaN).map(\.note).sorted() == notANumbers.sorted(), "\(self)")
        for (value, note) in reference {
            #expect(stored.filter { $0.value == value }.map(\.note) == [note], "\(self): \(value)")
        }
        #expect(try container.verify().isClean, "\(self)")
    }
}

// MARK: - Count and size arguments

/// A limit, an offset and a batch or chunk size, each from anywhere in `Int`'s range.
struct ArgumentCase: CustomStringConvertible {
    static let pool: [Int] = [.min, .min + 1, -65_537, -1, 0, 1, 2, 3, 7, 8, 65_536, .max - 1, .max]

    let seed: UInt64
    let limit: Int?
    let offset: Int?
    let size: Int

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        limit = Bool.random(using: &random) ? Self.pool.randomElement(using: &random) : nil
        offset = Bool.random(using: &random) ? Self.pool.randomElement(using: &random) : nil
        size = Self.pool.randomElement(using: &random)!
    }

    var description: String { "CAIRN_HOSTILE_CASE=\(seed): limit \(limit as Any) offset \(offset as Any) size \(size)" }

    /// How many of `stored` models a fetch returns, when the arguments have one.
    func expectedCount(stored: Int) -> Int? {
        if let limit, limit < 0 { return nil }
        if let offset, offset < 0 { return nil }
        let remaining = max(stored - (offset ?? 0), 0)
        return min(remaining, limit ?? .max)
    }

    func run(_ container: ModelContainer, stored: Int) throws {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<HostileNote>(sortBy: [SortDescriptor(\.text)])
        descriptor.fetchLimit = limit
        descriptor.fetchOffset = offset
        let expected = expectedCount(stored: stored)
        check("fetch", expected) { try context.fetch(descriptor).count }
        check("fetchCount", expected) { try context.fetchCount(descriptor) }
        check("fetchIdentifiers", expected) { try context.fetchIdentifiers(descriptor).count }
        let batched = size > 0 ? expected : nil
        check("fetch(batchSize:)", batched) { try context.fetch(descriptor, batchSize: size).count }
        check("enumerate(batchSize:)", batched) {
            var count = 0
            try context.enumerate(descriptor, batchSize: size) { _ in count += 1 }
            return count
        }
        check("upsert(chunkSize:)", size > 0 ? 1 : nil) {
            try context.upsert([HostileShelf(name: "shelf \(seed)")], chunkSize: size).insertedRows.count
        }
    }

    /// `body` returns `expected`, or, where the arguments have no result, throws a typed error.
    private func check(_ call: String, _ expected: Int?, _ body: () throws -> Int) {
        do {
            let count = try body()
            if let expected {
                #expect(count == expected, "\(self): \(call)")
            }
        } catch let error where error is FetchError || error is SaveError {
            #expect(expected == nil, "\(self): \(call) refused arguments it has a result for: \(error)")
        } catch {
            Issue.record("\(self): \(call) threw an untyped error \(error)")
        }
    }
}
