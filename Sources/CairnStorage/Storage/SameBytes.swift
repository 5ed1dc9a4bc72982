import Foundation

extension UnsafeRawBufferPointer {
    /// Whether `other` holds exactly these bytes: one `memcmp`, where comparing the buffers as
    /// sequences steps through them a byte at a time.
    ///
    /// ```swift
    /// record.withUnsafeBytes { $0.hasSameBytes(as: cursor.current.value) }
    /// ```
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (isEmpty || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}
