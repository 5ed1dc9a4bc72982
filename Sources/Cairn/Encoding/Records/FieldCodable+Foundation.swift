import Foundation

extension String: FieldCodable {
    /// `String` is its UTF-8 bytes, length-delimited.
    ///
    /// ```swift
    /// assert(String.wireType == .lengthDelimited)
    /// ```
    package static var wireType: WireType { .lengthDelimited }

    /// Writes the UTF-8 bytes.
    ///
    /// ```swift
    /// "Ada".encodeField(into: &payload)   // 41 64 61
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        // A native string's bytes are copied from its storage as they are, without retaining it
        // (appending the UTF-8 view retained the string twice and released it); a bridged one
        // is read through its view, out of line: inlined, that path brought the retains back.
        if utf8.withContiguousStorageIfAvailable({ payload.writeBytes($0) }) == nil {
            Self.writeNoncontiguous(self, into: &payload)
        }
    }

    @inline(never)
    private static func writeNoncontiguous(_ string: String, into payload: inout FieldPayloadWriter) {
        payload.writeBytes(string.utf8)
    }

    /// Reads and validates UTF-8 bytes.
    ///
    /// ```swift
    /// let name = try String(fieldPayload: .bytes([0x41]))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` for another wire type, or `.damagedRecord` for invalid UTF-8.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .bytes(let raw) = fieldPayload else { throw fieldPayload.mismatch(String.self) }
        let string = raw.withUnsafeBufferPointer { String.validatingUTF8($0) }
        guard let string else { throw StorageError.damagedRecord("A String field is not valid UTF-8.") }
        self = string
    }
}

extension String {
    /// The text of `bytes` if they are valid UTF-8, else `nil`: what `String(validating:as:)`
    /// gives, without its cost.
    ///
    /// The standard library's decoder for a buffer of bytes is specialized code, while
    /// `String(validating:as:)` is generic and looked type metadata up at every call. The decoder
    /// repairs invalid UTF-8 (each bad sequence becomes U+FFFD), so it gives back the very bytes it
    /// was given exactly when they were valid.
    ///
    /// ```swift
    /// [0x41, 0x42].withUnsafeBufferPointer { String.validatingUTF8($0) }   // "AB"
    /// [0xC3].withUnsafeBufferPointer { String.validatingUTF8($0) }         // nil
    /// ```
    package static func validatingUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var decoded = String(decoding: bytes, as: UTF8.self)
        let valid = decoded.withUTF8 { UnsafeRawBufferPointer($0).hasSameBytes(as: UnsafeRawBufferPointer(bytes)) }
        return valid ? decoded : nil
    }
}

extension Data: FieldCodable {
    /// `Data` is its bytes, length-delimited.
    ///
    /// ```swift
    /// assert(Data.wireType == .lengthDelimited)
    /// ```
    package static var wireType: WireType { .lengthDelimited }

    /// Writes the bytes.
    ///
    /// ```swift
    /// Data([1, 2]).encodeField(into: &payload)
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeBytes(self)
    }

    /// Copies the bytes.
    ///
    /// ```swift
    /// let blob = try Data(fieldPayload: .bytes([1, 2]))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` for another wire type.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .bytes(let raw) = fieldPayload else { throw fieldPayload.mismatch(Data.self) }
        self = Data(raw)
    }
}

extension Date: FieldCodable {
    /// `Date` is `timeIntervalSinceReferenceDate` as a `Double`, little-endian.
    ///
    /// ```swift
    /// assert(Date.wireType == .fixed64)
    /// ```
    package static var wireType: WireType { .fixed64 }

    /// Writes the bits of `timeIntervalSinceReferenceDate`.
    ///
    /// ```swift
    /// Date.now.encodeField(into: &payload)
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeFixed64(timeIntervalSinceReferenceDate.bitPattern)
    }

    /// Reads a date.
    ///
    /// ```swift
    /// let date = try Date(fieldPayload: .fixed64(0))   // 2001-01-01 00:00:00 UTC
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` with code `.unsupportedValue` for another wire type.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .fixed64(let bits) = fieldPayload else { throw fieldPayload.mismatch(Date.self) }
        self = Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
    }
}

extension UUID: FieldCodable {
    /// `UUID` is its 16 bytes, length-delimited.
    ///
    /// ```swift
    /// assert(UUID.wireType == .lengthDelimited)
    /// ```
    package static var wireType: WireType { .lengthDelimited }

    /// Writes the 16 bytes.
    ///
    /// ```swift
    /// UUID().encodeField(into: &payload)
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        withUnsafeBytes(of: uuid) { payload.writeBytes($0) }
    }

    /// Reads 16 bytes.
    ///
    /// ```swift
    /// let id = try UUID(fieldPayload: .bytes(ArraySlice(repeating: 0, count: 16)))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` for another wire type, or `.damagedRecord` when the payload
    ///   is not 16 bytes.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        guard case .bytes(let raw) = fieldPayload else { throw fieldPayload.mismatch(UUID.self) }
        guard raw.count == 16 else {
            throw StorageError.damagedRecord("A UUID field holds \(raw.count) bytes, not 16.")
        }
        self = UUID(uuidBytes: raw)
    }
}

extension URL: FieldCodable {
    /// `URL` is its `absoluteString` in UTF-8, length-delimited.
    ///
    /// A relative URL is stored resolved against its base, so it reads back as the equivalent
    /// absolute URL (equal `absoluteURL`, no `baseURL`).
    ///
    /// ```swift
    /// assert(URL.wireType == .lengthDelimited)
    /// ```
    package static var wireType: WireType { .lengthDelimited }

    /// Writes `absoluteString`.
    ///
    /// ```swift
    /// URL(string: "https://example.com")!.encodeField(into: &payload)
    /// ```
    ///
    /// - Parameters:
    ///   - payload: The record being built.
    package func encodeField(into payload: inout FieldPayloadWriter) {
        payload.writeBytes(absoluteString.utf8)
    }

    /// Parses the stored string.
    ///
    /// ```swift
    /// let url = try URL(fieldPayload: .bytes(ArraySlice("https://example.com".utf8)))
    /// ```
    ///
    /// - Parameters:
    ///   - fieldPayload: The stored payload.
    /// - Throws: `StorageError` for another wire type, or `.damagedRecord` when the bytes are
    ///   not a valid URL string.
    package init(fieldPayload: FieldPayload) throws(StorageError) {
        let string = try String(fieldPayload: fieldPayload)
        guard let url = URL(string: string) else {
            throw StorageError.damagedRecord("A URL field holds \"\(string.prefix(80))\", which is not a valid URL.")
        }
        self = url
    }
}
