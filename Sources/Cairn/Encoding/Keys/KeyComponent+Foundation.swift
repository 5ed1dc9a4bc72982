import Foundation

extension UUID: KeyComponent {
    /// Appends the 16 bytes of the UUID in their usual order.
    ///
    /// UUIDs therefore order by their bytes, as `uuid` tuples compare lexicographically.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// UUID().appendKey(to: &key)   // 16 bytes
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        withUnsafeBytes(of: uuid) { key.appendRawBytes($0) }
    }

    /// Reads 16 bytes as a UUID.
    ///
    /// ```swift
    /// let id = try UUID.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The UUID.
    /// - Throws: `StorageError` when fewer than 16 bytes remain.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> UUID {
        UUID(uuidBytes: try reader.readRawBytes(count: 16))
    }
}

extension Date: KeyComponent {
    /// Appends `timeIntervalSinceReferenceDate` keyed as a `Double`: 8 bytes.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// Date(timeIntervalSinceReferenceDate: 0).appendKey(to: &key)   // 80 00 00 00 00 00 00 00
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        timeIntervalSinceReferenceDate.appendKey(to: &key)
    }

    /// Reads a date keyed as a `Double`.
    ///
    /// ```swift
    /// let date = try Date.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The date.
    /// - Throws: `StorageError` as `Double.readKey(from:)` does.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> Date {
        Date(timeIntervalSinceReferenceDate: try Double.readKey(from: &reader))
    }
}

extension UUID {
    init(uuidBytes bytes: some Collection<UInt8>) {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { target in
            for (offset, byte) in zip(target.indices, bytes) { target[offset] = byte }
        }
        self.init(uuid: raw)
    }
}

extension URL: KeyComponent {
    /// Appends the UTF-8 bytes of `absoluteString`, escaped and terminated as `Data` is: the
    /// string the record stores, so two URLs have one key when they store alike.
    ///
    /// ```swift
    /// var key = KeyBuilder()
    /// URL(string: "a:b")!.appendKey(to: &key)   // 61 3A 62 00 01
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key being built.
    package func appendKey(to key: inout KeyBuilder) {
        key.appendEscapedAndTerminated(absoluteString.utf8)
    }

    /// Reads a URL keyed by ``appendKey(to:)``.
    ///
    /// ```swift
    /// let link = try URL.readKey(from: &reader)
    /// ```
    ///
    /// - Parameters:
    ///   - reader: The key being read.
    /// - Returns: The URL.
    /// - Throws: `StorageError` when the bytes are no terminated UTF-8 string or no URL.
    package static func readKey(from reader: inout KeyReader) throws(StorageError) -> URL {
        let raw = try reader.readEscapedAndTerminated()
        guard let string = String(validating: raw, as: UTF8.self), let url = URL(string: string) else {
            throw StorageError.damagedKey("A URL in the key is not a valid URL string.")
        }
        return url
    }
}
