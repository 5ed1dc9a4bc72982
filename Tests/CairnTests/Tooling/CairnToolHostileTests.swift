import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

#if canImport(Glibc)
import Glibc
#endif

/// Every `cairn` command against a store with planted entries: each refuses at once with its
/// exit status and a message naming the entry, writes nothing through a link, and never hangs.
@Suite struct CairnToolHostileTests {
    /// The commands that open a store, with the status each exits with when it cannot.
    static let commands: [(arguments: @Sendable (String, String) -> [String], status: Int32)] = [
        ({ store, _ in ["inspect", store] }, 1),
        ({ store, _ in ["verify", store] }, 2),
        ({ store, _ in ["dump", store, "--entity", "HostileNote"] }, 1),
        ({ store, _ in ["history", store] }, 1),
        ({ store, scratch in ["backup", store, scratch + "/copy.store"] }, 1),
        ({ store, _ in ["compact", store] }, 1),
    ]

    /// Bug: every command, read-only ones included, let LMDB write its lock file through a planted
    /// link, and a FIFO in place of the data file hung every command. Fix: see
    /// `HostileDirectoryTests`; the tool opens stores through the same checks.
    @Test(arguments: HostileEntry.allCases)
    func everyCommandRefusesAPlantedEntryWithoutHangingOrWritingThroughIt(entry: HostileEntry) throws {
        let directory = TemporaryDirectory()
        let victim = try Victim(in: directory)
        let store = directory.child("Library.store")
        try makeStore(at: store)
        try entry.plant(in: store, victim: victim)
        for command in Self.commands {
            let arguments = command.arguments(store, directory.path)
            let run = try CairnTool.run(arguments, timeout: 30)
            #expect(!run.timedOut, "cairn \(arguments.joined(separator: " ")) hangs")
            #expect(run.status == command.status, "cairn \(arguments[0]): \(run.errors)")
            #expect(run.errors.contains(entry.expectedMessage), "cairn \(arguments[0]): \(run.errors)")
            try victim.expectIntact()
            #expect(FileEntry(at: directory.child("copy.store")) == .missing)
        }
    }

    @Test func everyCommandSaysAnotherProgramsFilesAreNotAStore() throws {
        let directory = TemporaryDirectory()
        let store = directory.child("Other.lmdb")
        try ForeignEnvironment.write(at: store, commits: 3)
        let before = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        for command in Self.commands {
            let arguments = command.arguments(store, directory.path)
            let run = try CairnTool.run(arguments, timeout: 30)
            #expect(run.status == command.status && run.errors.contains("not a Cairn store"), "\(run.errors)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == before)
    }

    @Test func everyCommandsHelpSaysWhatItRefuses() throws {
        for command in ["inspect", "verify", "dump", "history", "backup", "compact"] {
            let run = try CairnTool.run([command, "--help"], timeout: 30)
            #expect(run.output.contains("Refuses") && run.output.contains("symbolic link"), "\(command): \(run.output)")
        }
    }
}

/// Entries planted among a store's files, with what the tool's message must say.
enum HostileEntry: CaseIterable, Sendable {
    case linkedLockFile, danglingLockLink, fifoDataFile, linkedDataFile

    func plant(in store: String, victim: Victim) throws {
        switch self {
        case .linkedLockFile: try replace(store + "/lock.mdb") { try plantLink($0, to: victim.file) }
        case .danglingLockLink:
            try replace(store + "/lock.mdb") { try plantLink($0, to: victim.directory + "/made-by-cairn") }
        case .fifoDataFile: try replace(store + "/data.mdb") { try SpecialFile.fifo.make(at: $0) }
        case .linkedDataFile: try replace(store + "/data.mdb") { try plantLink($0, to: victim.file) }
        }
    }

    var expectedMessage: String {
        switch self {
        case .linkedLockFile, .danglingLockLink: "lock file is a symbolic link"
        case .fifoDataFile: "data file is a FIFO"
        case .linkedDataFile: "data file is a symbolic link"
        }
    }
}

extension CairnTool {
    struct TimedRun {
        var status: Int32
        var timedOut: Bool
        var output: String
        var errors: String
    }

    /// Runs the executable with its output in files, killing it after `timeout` seconds.
    static func run(_ arguments: [String], timeout: Int) throws -> TimedRun {
        let scratch = TemporaryDirectory("cairn-tool-run")
        let outputURL = URL(fileURLWithPath: scratch.child("out")), errorsURL = URL(fileURLWithPath: scratch.child("err"))
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        let process = Process()
        process.executableURL = HelperProcess.executableURL.deletingLastPathComponent().appendingPathComponent("cairn")
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorsURL)
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let timedOut = exited.wait(timeout: .now() + .seconds(timeout)) == .timedOut
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        return TimedRun(
            status: process.terminationStatus, timedOut: timedOut,
            output: String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self),
            errors: String(decoding: (try? Data(contentsOf: errorsURL)) ?? Data(), as: UTF8.self))
    }
}
