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
