import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The I/O fault injector (`Tests/CairnFaultShim/FaultShim.c`), compiled on first use with the
/// toolchain's `clang` into a shared library that a child process loads with `LD_PRELOAD`.
///
/// Compiling it here rather than declaring a library product keeps it out of the package's
/// products: nobody who depends on Cairn sees it, and a fresh clone needs nothing but the Swift
/// toolchain (which always ships `clang`). Linux only: other systems have no `LD_PRELOAD`.
enum FaultShim {
    /// One injected fault: the counted call to fail, whether every later call fails too, and how.
    struct Fault: Hashable, Sendable, CustomStringConvertible {
        enum Failure: String, Sendable, CaseIterable { case EIO, ENOSPC, short }
        var index: Int
        var persistent: Bool
        var failure: Failure

        var description: String { "call \(index) \(persistent ? "persistent" : "once") \(failure.rawValue)" }
    }

    /// One counted call from the shim's log: its index, name and outcome ("ok", "EIO", "ENOSPC",
    /// "short 60/120").
    struct Call: Sendable {
        var index: Int
        var name: String
        var outcome: String

        /// Whether a short write applies to it.
        var isWrite: Bool { ["write", "pwrite", "writev", "pwritev"].contains(name) }

        /// Whether the shim failed this call. It logs a failure where it returns one, so this is
        /// the shim's own report that the fault was injected, not a restatement of the plan.
        var fired: Bool { outcome != "ok" }

        /// Whether the shim failed this call the way `failure` says.
        func fired(as failure: Fault.Failure) -> Bool {
            switch failure {
            case .EIO, .ENOSPC: outcome == failure.rawValue
            case .short: outcome.hasPrefix("short ")
            }
        }
    }

    /// The compiled library's path, or why it is unavailable.
    static let library: Result<String, ShimUnavailable> = build()

    static var isAvailable: Bool { (try? library.get()) != nil }

    /// Whether this system can preload the shim at all (Linux); where it can, a shim that fails
    /// to build is a test failure, not a skip.
    static var isSupportedPlatform: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    struct ShimUnavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The environment that loads the shim into a child: count calls on files under `directory`,
    /// log them to `log`, and inject `fault` if there is one.
    static func environment(directory: String, log: String, fault: Fault?) throws -> [String: String] {
        var environment = [
            "LD_PRELOAD": try library.get(),
            "CAIRN_FAULT_DIR": URL(fileURLWithPath: directory).resolvingSymlinksInPath().path,
            "CAIRN_FAULT_LOG": log,
        ]
        if let fault {
            environment["CAIRN_FAULT_INDEX"] = "\(fault.index)"
            environment["CAIRN_FAULT_PERSISTENT"] = fault.persistent ? "1" : "0"
            environment["CAIRN_FAULT_ERROR"] = fault.failure.rawValue
        }
        return environment
    }

    /// The calls a log records, in order.
    static func calls(inLog path: String) -> [Call] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let index = Int(fields[0]) else { return nil }
            return Call(index: index, name: String(fields[1]), outcome: String(fields[2]))
        }
    }

    static var sourcePath: String {
        // Tests/CairnTests/Support/FaultShim.swift → Tests/CairnFaultShim/FaultShim.c
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CairnFaultShim/FaultShim.c").path
    }

    private static func build() -> Result<String, ShimUnavailable> {
        #if os(Linux)
        guard let source = FileManager.default.contents(atPath: sourcePath) else {
            return .failure(ShimUnavailable(description: "the shim's source is missing at \(sourcePath)"))
        }
        guard let compiler = findCompiler() else {
            return .failure(ShimUnavailable(description: "no C compiler: set CC or put the toolchain's clang on PATH"))
        }
        // Named after the source's checksum, so parallel test processes share one build.
        let name = "cairn-fault-shim-\(FaultContents.checksum(String(decoding: source, as: UTF8.self))).so"
        let library = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: library) { return .success(library) }
        let partial = library + ".\(getpid()).partial"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["-shared", "-fPIC", "-O1", "-Wall", "-o", partial, sourcePath, "-ldl"]
        let errors = Pipe()
        process.standardError = errors
        do { try process.run() } catch {
            return .failure(ShimUnavailable(description: "\(compiler) did not start: \(error)"))
        }
        let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, rename(partial, library) == 0 else {
            return .failure(ShimUnavailable(description: "\(compiler) failed: \(diagnostics)"))
        }
        return .success(library)
        #else
        return .failure(ShimUnavailable(description: "LD_PRELOAD is Linux only"))
        #endif
    }

    /// `CC`, else `clang` beside `swift` or anywhere on PATH.
    private static func findCompiler() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let compiler = environment["CC"], FileManager.default.isExecutableFile(atPath: compiler) { return compiler }
        for directory in (environment["PATH"] ?? "/usr/bin").split(separator: ":").map(String.init) {
            let swift = directory + "/swift"
            if FileManager.default.isExecutableFile(atPath: swift) {
                let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
                let beside = real.appendingPathComponent("clang").path
                if FileManager.default.isExecutableFile(atPath: beside) { return beside }
            }
        }
        for directory in (environment["PATH"] ?? "/usr/bin").split(separator: ":").map(String.init) {
            let clang = directory + "/clang"
            if FileManager.default.isExecutableFile(atPath: clang) { return clang }
        }
        return nil
    }
}
