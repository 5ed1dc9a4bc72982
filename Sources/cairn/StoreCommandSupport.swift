import ArgumentParser
import Cairn
import Foundation

/// The store a command works on.
struct StoreArgument: ParsableArguments {
    @Argument(help: "The store's directory (the URL a ModelConfiguration names).")
    var store: String

    @Option(name: .customLong("key-file"), help: StoreSecret.keyFileHelp)
    var keyFile: String?

    /// The secret to open the store with (see ``StoreSecret``).
    func encryption() throws -> StoreEncryption? { try StoreSecret.resolve(keyFile: keyFile) }
}

/// `--json` and `--quiet`, for commands that report.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON (for scripts).")
    var json = false

    @Flag(name: .shortAndLong, help: "Show no progress on standard error.")
    var quiet = false
}

/// What every command that opens a store refuses, for its `--help` (see `Docs/Security.md`).
enum StoreRefusals {
    /// The paragraph, with the exit status and anything the command refuses besides.
    static func text(status: Int32, also: String? = nil) -> String {
        """

            Refuses, with exit status \(status) and without reading, creating or changing anything:
              - a store whose data.mdb or lock.mdb is a symbolic link, a FIFO, a socket, a device or a
                directory (it never follows a link or waits on a special file);
              - a store directory that belongs to another user, or that others may write to: run the command
                as the store's owner (sudo -u OWNER cairn …) on a directory only the owner may write;
              - another program's LMDB files (not a Cairn store)\(also.map { ";\n  - " + $0 } ?? "").
            """
    }
}

/// Opens the store read-only, or says why it cannot be opened and exits with `status`.
func openStore(_ store: StoreArgument, path: String? = nil, exitStatus status: Int32 = 1) throws -> StoreInspector {
    let path = path ?? store.store
    do {
        return try StoreInspector(path: path, encryption: store.encryption())
    } catch let error as ValidationError {
        printError("cairn: \(error.message)")
        throw ExitCode(status)
    } catch {
        printError("cairn: cannot open the store at \(path): \(describe(error))")
        throw ExitCode(status)
    }
}

/// An error's message, without the type's prefix where the error says what to do itself.
func describe(_ error: any Error) -> String {
    if let error = error as? StorageError { return "\(error.message) (\(error.code))" }
    return "\(error)"
}

/// Encodes `value` as JSON with sorted keys and ISO 8601 dates.
func jsonText<Value: Encodable>(_ value: Value, pretty: Bool = true) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
        pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// 1234567 → "1,234,567".
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}

/// Shows the growth of a file being written (a backup's copy) as progress toward `total` bytes,
/// until `body` returns.
func watchingFile<R>(
    _ path: @escaping @Sendable () -> String?, total: Int, progress: Progress, _ body: () throws -> R
) rethrows -> R {
    let done = DispatchSemaphore(value: 0)
    let stopped = DispatchSemaphore(value: 0)
    let watcher = Thread {
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            guard let file = path(), let attributes = try? FileManager.default.attributesOfItem(atPath: file),
                let size = attributes[.size] as? Int
            else { continue }
            progress.update(size)
        }
        stopped.signal()
    }
    watcher.start()
    defer {
        // The watcher's last update comes before the caller finishes the progress display.
        done.signal()
        stopped.wait()
    }
    return try body()
}
