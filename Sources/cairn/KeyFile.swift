import ArgumentParser
import Cairn
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The secret of an encrypted store, for the commands: a key file (`--key-file`) or a passphrase
/// from the environment (`CAIRN_PASSPHRASE`), never from the command line, where other users
/// could read it in the process list.
enum StoreSecret {
    /// The environment variable a passphrase is read from.
    static let passphraseVariable = "CAIRN_PASSPHRASE"

    /// The `--key-file` option's help.
    static let keyFileHelp = ArgumentHelp(
        "A file holding an encrypted store's 32-byte key: the bytes themselves, or 64 hexadecimal digits. "
            + "For a store encrypted with a passphrase, set \(passphraseVariable) instead.",
        valueName: "path")

    /// The secret the options give: the key file's key, else the passphrase in the environment,
    /// else none.
    static func resolve(keyFile: String?) throws -> StoreEncryption? {
        if let keyFile { return .key(try read(keyFile)) }
        if let passphrase = ProcessInfo.processInfo.environment[passphraseVariable], !passphrase.isEmpty {
            return .passphrase(passphrase)
        }
        return nil
    }

    /// The key in the file at `path`, which must be a regular file (a link is not followed, and
    /// a FIFO never waited on) of at most 256 bytes.
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw ValidationError("cannot open the key file \(path): \(String(cString: strerror(errno))) "
                + "(a symbolic link is not followed)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ValidationError("the key file \(path) is not a regular file")
        }
        guard info.st_size <= 256 else { throw ValidationError("the key file \(path) is larger than a key") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { readFile(fd, $0) }
        guard count == bytes.count else { throw ValidationError("cannot read the key file \(path)") }
        return try key(from: bytes, path: path)
    }

    /// 32 raw bytes, or 64 hexadecimal digits with surrounding whitespace.
    static func key(from bytes: [UInt8], path: String) throws -> [UInt8] {
        if bytes.count == 32 { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = Array(text.utf8)
        guard digits.count == 64 else {
            throw ValidationError("the key file \(path) holds \(bytes.count) bytes: a key is 32 bytes, or 64 hexadecimal digits")
        }
        var key: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw ValidationError("the key file \(path) holds a character that is not a hexadecimal digit")
            }
            key.append(byte)
        }
        return key
    }
}

/// `read(2)` into `buffer` (at file scope, where `read` is the system's).
private func readFile(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
}
