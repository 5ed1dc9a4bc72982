import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

#if canImport(Glibc)
import Glibc
#endif

/// A directory others may write to, around and inside a store: planted links, FIFOs, sockets,
/// devices, directories and another program's files. Cairn must refuse them with a typed error,
/// never hang on them, and never write, create or delete anything outside the store's own files.
@Suite struct HostileDirectoryTests {
    // MARK: Scratch directories beside a store

    /// Bug: creating a store removed the scratch directories of processes that died while
    /// creating one by name, following a planted symbolic link and deleting the files of the
    /// directory it pointed to. Fix: removal opens each candidate with O_NOFOLLOW, checks that it
    /// is this user's, and unlinks its entries relative to its descriptor.
    @Test func creatingAStoreNeverDeletesThroughAPlantedScratchLink() throws {
        let directory = TemporaryDirectory()
        let victim = try Victim(in: directory)
        try plantLink(directory.child(StoreFiles.scratchPrefix + "\(deadProcess)"), to: victim.directory)
        // A real directory of the expected name, holding a link to the victim's file.
        let planted = directory.child(StoreFiles.scratchPrefix + "\(deadProcess)-7")
        #expect(mkdir(planted, 0o700) == 0)
        try plantLink(planted + "/data.mdb", to: victim.file)

        _ = try LMDBEnvironment.create(StorageConfiguration(path: directory.child("store")))
        try victim.expectIntact()
        #expect(FileEntry(at: planted) == .missing, "an abandoned scratch directory of this user is still removed")
        #expect(FileEntry(at: directory.child(StoreFiles.scratchPrefix + "\(deadProcess)")) == .symbolicLink)
    }

    @Test func aScratchDirectoryOfAnotherUserIsLeftAlone() throws {
        guard geteuid() == 0 else { return }  // only root can give a directory away; CI runs as root
        let directory = TemporaryDirectory()
        let planted = directory.child(StoreFiles.scratchPrefix + "\(deadProcess)")
        #expect(mkdir(planted, 0o755) == 0)
        #expect(FileManager.default.createFile(atPath: planted + "/theirs", contents: Data("theirs".utf8)))
        #expect(chown(planted, 65534, 65534) == 0)
        _ = try LMDBEnvironment.create(StorageConfiguration(path: directory.child("store")))
        #expect(FileManager.default.contents(atPath: planted + "/theirs") == Data("theirs".utf8))
    }

    /// Same bug in compaction: its stopped runs' copies were removed by following links.
    @Test func compactingNeverDeletesThroughAPlantedCopyLink() throws {
        let directory = TemporaryDirectory()
        let victim = try Victim(in: directory)
        let store = directory.child("Library.store")
        try makeStore(at: store)
        try plantLink(directory.child(".Library.store.compacting-\(deadProcess)"), to: victim.directory)
        _ = try StoreCompaction.compact(StorageConfiguration(path: store))
        try victim.expectIntact()
    }

    @Test func removingADirectoryRemovesOnlyLinksNeverWhatTheyName() throws {
        let directory = TemporaryDirectory()
        let victim = try Victim(in: directory)
        let linked = directory.child("linked")
        try plantLink(linked, to: victim.directory)
        StoreFiles.removeDirectory(linked)
        try victim.expectIntact()

        let real = directory.child("real")
        #expect(mkdir(real, 0o700) == 0)
        try plantLink(real + "/data.mdb", to: victim.file)
        try plantLink(real + "/victim", to: victim.directory)
        StoreFiles.removeDirectory(real)
        try victim.expectIntact()
        #expect(FileEntry(at: real) == .missing)
    }

    // MARK: Links and special files among a store's files

    /// Bug: opening a store (writable, read-only, or with any `cairn` command) let LMDB open
    /// `lock.mdb` through a planted symbolic link and write its header there, overwriting the
    /// link's target or creating a dangling link's. Fix: the store's files are examined with
    /// lstat before LMDB opens them, and LMDB is handed a directory held open by descriptor.
    @Test(arguments: [false, true], [false, true])
    func aLinkedLockFileIsRefusedAndNothingIsWrittenThroughIt(dangling: Bool, readOnly: Bool) throws {
        let directory = TemporaryDirectory()
        let victim = try Victim(in: directory)
        let store = directory.child("Library.store")
        try makeStore(at: store)
        let target = dangling ? directory.child("made-by-lmdb") : victim.file
        try replace(store + "/lock.mdb") { try plantLink($0, to: target) }

        let error = try openError(store, readOnly: readOnly)
        #expect(error.code == .unsafeFile && error.path == store + "/lock.mdb", "\(error)")
        #expect(error.message.contains("symbolic link"))
        try victim.expectIntact()
        #expect(FileEntry(at: directory.child("made-by-lmdb")) == .missing)
    }

    @Test func aLinkedDataFileIsRefusedAndItsTargetUntouched() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Library.store")
        try makeStore(at: store)
        let moved = directory.child("elsewhere.mdb")
        #expect(rename(store + "/data.mdb", moved) == 0)
        try plantLink(store + "/data.mdb", to: moved)
        let before = try Data(contentsOf: URL(fileURLWithPath: moved))
        for readOnly in [false, true] {
            let error = try openError(store, readOnly: readOnly)
            #expect(error.code == .unsafeFile && error.path == store + "/data.mdb", "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved)) == before)
    }

    /// Bug: a FIFO where the data file should be made every open (and every `cairn` command)
    /// hang in open(2). Fix: files are opened with O_NONBLOCK and O_NOFOLLOW and must be regular.
    @Test(arguments: SpecialFile.allCases, ["data.mdb", "lock.mdb"])
    func aSpecialFileAmongTheStoresFilesIsRefusedAtOnce(kind: SpecialFile, name: String) throws {
        guard kind != .device || geteuid() == 0 else { return }  // mknod needs root; CI runs as root
        let directory = TemporaryDirectory()
        let store = directory.child("Library.store")
        try makeStore(at: store)
        try replace(store + "/" + name) { try kind.make(at: $0) }
        for readOnly in [false, true] {
            let error = try withDeadline(seconds: 20) { try openError(store, readOnly: readOnly) }
            #expect(error.code == (kind == .directory ? .isDirectory : .unsafeFile), "\(error)")
            #expect(error.path == store + "/" + name && error.message.contains(kind.phrase), "\(error)")
        }
    }

    @Test func aStoreDirectoryOthersMayWriteIsRefusedUntilItIsPrivateAgain() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Library.store")
        try makeStore(at: store)
        #expect(chmod(store, 0o777) == 0)
        let error = try openError(store, readOnly: true)
        #expect(error.code == .unsafeFile && error.message.contains("chmod 700"), "\(error)")
        #expect(chmod(store, 0o700) == 0)
        _ = try container(store, readOnly: true)
    }

    @Test func aStoreDirectoryOfAnotherUserIsRefused() throws {
        guard geteuid() == 0 else { return }  // only root can give a directory away; CI runs as root
        let directory = TemporaryDirectory()
        let store = directory.child("Library.store")
        try makeStore(at: store)
        #expect(chown(store, 65534, 65534) == 0)
        let error = try openError(store, readOnly: true)
        #expect(error.code == .unsafeFile && error.message.contains("sudo -u"), "\(error)")
    }

    // MARK: Files Cairn creates

    @Test(arguments: [false, true])
    func aBackupNeverWritesThroughALinkAtItsDestination(dangling: Bool) throws {
        let directory = TemporaryDirectory()
        let victim = try Victim(in: directory)
        let store = directory.child("Library.store")
        try makeStore(at: store)
        let destination = directory.child("Backup.store")
        try plantLink(destination, to: dangling ? directory.child("made-by-backup") : victim.directory)
        let source = try container(store, readOnly: false)
        #expect(throws: StorageError.self) { try source.backup(to: URL(fileURLWithPath: destination)) }
        try victim.expectIntact()
        #expect(FileEntry(at: directory.child("made-by-backup")) == .missing)
        #expect(FileEntry(at: destination) == .symbolicLink)
    }

    // MARK: Another program's files

    /// Bug: another program's LMDB environment was reported as a damaged store ("restore it from
    /// a backup"), or, with a single commit, had Cairn's tables written into it. Fix: sound trees
    /// without Cairn's commit marker, or tables without a store identifier, are `notAStore`.
    @Test(arguments: [1, 5])
    func anotherProgramsEnvironmentIsNotAStoreAndIsLeftUnchanged(commits: Int) throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Other.lmdb")
        try ForeignEnvironment.write(at: store, commits: commits)
        let before = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        for readOnly in [false, true] {
            let error = try openError(store, readOnly: readOnly)
            #expect(error.code == .notAStore && error.message.contains("not a Cairn store"), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == before)
    }
}

// MARK: - Fixtures

@Model final class HostileNote {
    var text: String
    init(text: String) { self.text = text }
}

/// A process id no process has (Linux's largest is 2^22).
let deadProcess: Int32 = 2_000_000_000

/// A directory and a file that must survive whatever is done around a store.
struct Victim {
    let directory: String
    let file: String
    static let contents = Data("precious, not Cairn's".utf8)

    init(in parent: TemporaryDirectory) throws {
        directory = parent.child("victim")
        file = directory + "/precious.txt"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try Self.contents.write(to: URL(fileURLWithPath: file))
    }

    func expectIntact(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["precious.txt"],
                sourceLocation: sourceLocation)
        #expect(FileManager.default.contents(atPath: file) == Self.contents, sourceLocation: sourceLocation)
    }
}

/// Kinds of entry that are not regular files, each made at a path.
enum SpecialFile: CaseIterable, Sendable, CustomTestStringConvertible {
    case fifo, socket, device, directory

    var testDescription: String { "\(self)" }

    /// How the refusal's message names it.
    var phrase: String {
        switch self {
        case .fifo: "FIFO"
        case .socket: "socket"
        case .device: "device"
        case .directory: "directory"
        }
    }

    func make(at path: String) throws {
        switch self {
        case .fifo: #expect(mkfifo(path, 0o600) == 0)
        case .directory: #expect(mkdir(path, 0o700) == 0)
        case .device: #expect(mknod(path, S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0)  // the null device
        case .socket:
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(bound == 0, "a socket path must be short: \(path)")
        }
    }
}

func plantLink(_ path: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
}

/// Removes the entry at `path` and makes another there.
func replace(_ path: String, with make: (String) throws -> Void) throws {
    unlink(path)
    try make(path)
}

/// A store with one saved note, closed again.
func makeStore(at path: String) throws {
    let context = ModelContext(try container(path, readOnly: false))
    context.insert(HostileNote(text: "kept"))
    try context.save()
}

func container(_ path: String, readOnly: Bool) throws -> ModelContainer {
    try ModelContainer(
        for: HostileNote.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path), allowsSave: !readOnly))
}

/// The `StorageError` opening the store at `path` throws (the test fails if it opens).
func openError(_ path: String, readOnly: Bool) throws -> StorageError {
    do {
        _ = try container(path, readOnly: readOnly)
    } catch let error as StorageError {
        return error
    }
    Issue.record("the store at \(path) opened")
    return StorageError(code: .other, message: "opened")
}

/// Runs `body` on another thread and fails (instead of hanging the suite) when it has not
/// returned within `seconds`.
func withDeadline<R: Sendable>(seconds: Int, _ body: @escaping @Sendable () throws -> R) throws -> R {
    let box = ResultBox<R>()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        box.set(Result { try body() })
        done.signal()
    }
    guard done.wait(timeout: .now() + .seconds(seconds)) == .success, let result = box.result else {
        throw StorageError(code: .other, message: "still running after \(seconds) s: it hangs")
    }
    return try result.get()
}

private final class ResultBox<R>: @unchecked Sendable {
    // Written once before the semaphore is signalled, read after it was waited for.
    private(set) var result: Result<R, any Error>?
    func set(_ result: Result<R, any Error>) { self.result = result }
}
