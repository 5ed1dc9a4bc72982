import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs the `CairnTestHelper` executable, built next to the test bundle, as a child process.
final class HelperProcess {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    static var executableURL: URL {
        // Test bundles and executables share the build products directory.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents"
            || directory.lastPathComponent == "MacOS"
        {
            directory.deleteLastPathComponent()
        }
        let candidate = directory.appendingPathComponent("CairnTestHelper")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        // swift-testing's runner on Linux: /proc/self/exe is the test binary.
        let exe = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        return exe.deletingLastPathComponent().appendingPathComponent("CairnTestHelper")
    }

    init(_ arguments: [String]) throws {
        process.executableURL = Self.executableURL
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs to completion and returns the exit status, standard output and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let helper = try HelperProcess(arguments)
        return helper.waitForExit()
    }

    /// Sends SIGKILL.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Reads one line of standard output, or nil at end of output.
    func readLine() -> String? {
        var bytes: [UInt8] = []
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Waits for the process to end and collects what it wrote.
    func waitForExit() -> (status: Int32, output: String, errors: String) {
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}

/// How a helper run under a time limit ended, and what it printed.
struct HelperRun: Sendable {
    var status: Int32
    /// The signal that ended the process, or nil when it exited.
    var signal: Int32?
    var timedOut: Bool
    var output: String
    var errors: String

    var lines: [Substring] { output.split(separator: "\n") }

    /// The first "error <phase> <Type>.<code> <message>" line, without "error ".
    var errorLine: String? { lines.first { $0.hasPrefix("error ") }.map { String($0.dropFirst(6)) } }

    /// The numbers of the "ack N" lines.
    var acknowledged: [Int] { lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil } }

    /// What ended the process, for a report: "exit 0", "signal 9", "no exit after 20 s".
    var ending: String {
        if timedOut { return "hang (killed at the time limit)" }
        if let signal { return "signal \(signal)" }
        return "exit \(status)"
    }

    /// Why the process crashed, from standard error: assertion and fatal-error messages, the
    /// crash line, and the first frames outside the C library. Falls back to the last lines.
    var errorTail: String {
        let lines = errors.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var picked = lines.filter {
            $0.contains("Assertion") || $0.contains("Fatal error") || $0.contains("Program crashed")
                || $0.contains("precondition") || $0.hasPrefix("failed ")
        }
        let frames = lines.filter {
            $0.first?.isNumber == true && $0.contains(" in ") && !$0.contains("libc.so")
                && !$0.contains("libswiftCore.so")
        }
        picked += frames.prefix(4)
        return (picked.isEmpty ? Array(lines.suffix(3)) : picked).joined(separator: " | ")
    }
}

extension HelperProcess {
    /// Runs the helper with extra environment variables and kills it (SIGKILL) when it runs longer
    /// than `timeLimit` seconds.
    static func run(_ arguments: [String], environment: [String: String], timeLimit: Double) throws -> HelperRun {
        let process = Process()
        process.executableURL = executableURL
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are drained while the process runs, so a chatty child never blocks on a full pipe.
        let collected = CollectedOutput()
        let group = DispatchGroup()
        for (pipe, isOutput) in [(output, true), (errors, false)] {
            DispatchQueue.global().async(group: group) {
                collected.set(pipe.fileHandleForReading.readDataToEndOfFile(), isOutput: isOutput)
            }
        }
        let deadline = Date().addingTimeInterval(timeLimit)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                Glibc.kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        group.wait()
        let signaled = process.terminationReason == .uncaughtSignal
        return HelperRun(
            status: process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
            timedOut: timedOut, output: collected.output, errors: collected.errors)
    }
}

/// The two streams of a child, filled from two reader threads.
private final class CollectedOutput: @unchecked Sendable {
    // `lock` guards both strings.
    private let lock = NSLock()
    private var outputText = ""
    private var errorText = ""

    func set(_ data: Data, isOutput: Bool) {
        lock.withLock {
            if isOutput {
                outputText = String(decoding: data, as: UTF8.self)
            } else {
                errorText = String(decoding: data, as: UTF8.self)
            }
        }
    }

    var output: String { lock.withLock { outputText } }
    var errors: String { lock.withLock { errorText } }
}
