#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output, buffered: a dump of a million rows writes in 64 KiB blocks rather than a
/// system call per row. Flushed when it fills and when the command ends.
final class StandardOutput {
    private var buffer: [UInt8] = []
    private let capacity = 64 << 10

    init() { buffer.reserveCapacity(capacity) }

    deinit { flush() }

    /// Appends `text` and a newline.
    func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= capacity { flush() }
    }

    /// Writes out what is buffered.
    func flush() {
        var written = 0
        while written < buffer.count {
            let result = buffer.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { break }  // a closed pipe: nothing more can be written
            written += result
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes a line to standard error, unbuffered.
func printError(_ text: String) { writeStandardError(text + "\n") }

/// Writes `text` to standard error, unbuffered.
func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let result = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress!, $0.count) }
        if result < 0 && errno == EINTR { continue }
        guard result > 0 else { return }
        bytes = bytes.dropFirst(result)
    }
}
