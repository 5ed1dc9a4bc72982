internal import CAESGCM
import Crypto
import Foundation

/// Seals and opens the values of an encrypted store's tables with AES-256-GCM under the store's
/// data key: the one place that makes and reads their bytes.
///
/// A sealed value is laid out as
///
/// | bytes | what |
/// |---|---|
/// | 1 | format, `0x01`: AES-256-GCM |
/// | 12 | nonce |
/// | *n* | the value, encrypted |
/// | 16 | authentication tag |
///
/// and authenticates, besides itself, the table and the key it is stored under (the additional
/// data is the first 8 bytes of SHA-256 of the table's name, then the key; `SealingScratch`): a
/// value moved to another key or table, or changed in any bit, does not open.
///
/// Where the processor has AES and carry-less multiply instructions (x86-64 with AES-NI) the
/// work is done by `CAESGCM`, whose schedule is expanded once per key; elsewhere by
/// swift-crypto's `AES.GCM`, which gives the same bytes (each call there costs several thousand
/// instructions, a record's whole read here; see `Docs/Encryption.md`). Immutable after
/// `init`, so any number of transactions use one cipher at once.
///
/// ```swift
/// let cipher = ValueCipher(dataKey: key)
/// var nonces = NonceSequence()
/// let sealed = cipher.sealed(value, additionalData: aad, nonces: &nonces)
/// let opened = try cipher.opened(sealed, additionalData: aad)   // value
/// ```
package final class ValueCipher: @unchecked Sendable {
    /// The bytes a sealed value has beyond its plaintext: format, nonce and tag.
    package static let overhead = 1 + 12 + 16
    /// The format byte of a value sealed with AES-256-GCM.
    static let format: UInt8 = 0x01

    /// Whether this processor runs `CAESGCM`.
    package static let hardwareAvailable = cairn_gcm_hardware_available() != 0

    /// The expanded key for `CAESGCM`, or `nil` where it does not run. Written once in `init`.
    private let schedule: UnsafeMutablePointer<cairn_gcm_key>?
    /// The same key for swift-crypto.
    private let key: SymmetricKey

    /// A cipher for the 32-byte `dataKey`; `hardware: false` uses swift-crypto even where the
    /// processor could do the work (the tests compare the two).
    ///
    /// ```swift
    /// let cipher = ValueCipher(dataKey: dataKey)
    /// ```
    package init(dataKey: [UInt8], hardware: Bool = ValueCipher.hardwareAvailable) {
        precondition(dataKey.count == 32, "ValueCipher: a data key is 32 bytes, not \(dataKey.count)")
        key = SymmetricKey(data: dataKey)
        if hardware {
            let schedule = UnsafeMutablePointer<cairn_gcm_key>.allocate(capacity: 1)
            dataKey.withUnsafeBufferPointer { cairn_gcm_init(schedule, $0.baseAddress!) }
            self.schedule = schedule
        } else {
            schedule = nil
        }
    }

    /// The data key's bytes, to wrap it again under another secret.
    var dataKey: [UInt8] { key.withUnsafeBytes { Array($0) } }

    deinit {
        if let schedule {
            cairn_gcm_wipe(schedule, MemoryLayout<cairn_gcm_key>.size)
            schedule.deallocate()
        }
    }

    /// Seals `plaintext` into `output`, which holds exactly `plaintext.count + overhead` bytes,
    /// under the next nonce of `nonces`.
    ///
    /// ```swift
    /// cipher.seal(value, additionalData: aad, nonces: &nonces, into: buffer)
    /// ```
    package func seal(
        _ plaintext: UnsafeRawBufferPointer, additionalData: UnsafeRawBufferPointer, nonces: inout NonceSequence,
        into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(output.count == plaintext.count + Self.overhead, "ValueCipher.seal: output of the wrong size")
        let base = output.baseAddress!
        base.storeBytes(of: Self.format, as: UInt8.self)
        nonces.next(into: base + 1)
        let nonce = UnsafeRawBufferPointer(start: base + 1, count: 12)
        let ciphertext = UnsafeMutableRawBufferPointer(start: base + 13, count: plaintext.count)
        let tag = UnsafeMutableRawBufferPointer(start: base + 13 + plaintext.count, count: 16)
        if let schedule {
            cairn_gcm_seal(
                schedule, bytes(nonce), bytes(additionalData), additionalData.count, bytes(plaintext), plaintext.count,
                bytes(ciphertext), bytes(tag))
        } else {
            // Sealing with a valid key and a 12-byte nonce has no way to fail.
            let box = try! AES.GCM.seal(
                plaintext, using: key, nonce: try! AES.GCM.Nonce(data: nonce), authenticating: additionalData)
            box.ciphertext.copyBytes(to: ciphertext)
            box.tag.copyBytes(to: tag)
        }
    }

    /// The same, into a new array.
    ///
    /// ```swift
    /// let sealed = cipher.sealed(value, additionalData: aad, nonces: &nonces)
    /// ```
    /// - Returns: The sealed value.
    package func sealed(
        _ plaintext: some ContiguousBytes, additionalData: some ContiguousBytes, nonces: inout NonceSequence
    ) -> [UInt8] {
        plaintext.withUnsafeBytes { plaintext in
            additionalData.withUnsafeBytes { additionalData in
                [UInt8](unsafeUninitializedCapacity: plaintext.count + Self.overhead) { output, count in
                    seal(plaintext, additionalData: additionalData, nonces: &nonces, into: UnsafeMutableRawBufferPointer(output))
                    count = output.count
                }
            }
        }
    }

    /// The plaintext size of the sealed value `sealed`, or `nil` when it is too short or not in a
    /// format this version knows.
    ///
    /// ```swift
    /// guard let size = ValueCipher.openedSize(of: stored) else { throw damaged }
    /// ```
    package static func openedSize(of sealed: UnsafeRawBufferPointer) -> Int? {
        guard sealed.count >= overhead, sealed[0] == format else { return nil }
        return sealed.count - overhead
    }

    /// Opens `sealed` into `output`, which holds exactly its ``openedSize(of:)`` bytes; `false`
    /// (and `output` zeroed) when the value does not authenticate with this additional data.
    ///
    /// ```swift
    /// guard cipher.open(stored, additionalData: aad, into: buffer) else { throw damaged }
    /// ```
    package func open(
        _ sealed: UnsafeRawBufferPointer, additionalData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard let size = Self.openedSize(of: sealed), output.count == size else { return false }
        let base = sealed.baseAddress!
        let nonce = UnsafeRawBufferPointer(start: base + 1, count: 12)
        let ciphertext = UnsafeRawBufferPointer(start: base + 13, count: size)
        let tag = UnsafeRawBufferPointer(start: base + 13 + size, count: 16)
        if let schedule {
            return cairn_gcm_open(
                schedule, bytes(nonce), bytes(additionalData), additionalData.count, bytes(ciphertext), size,
                bytes(output), bytes(tag)) == 1
        }
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            let opened = try AES.GCM.open(box, using: key, authenticating: additionalData)
            opened.copyBytes(to: output)
            return true
        } catch {
            if size > 0 { output.initializeMemory(as: UInt8.self, repeating: 0) }
            return false
        }
    }

    /// The same, into a new array; `nil` when the value does not authenticate.
    ///
    /// ```swift
    /// let value = cipher.opened(stored, additionalData: aad)
    /// ```
    /// - Returns: The plaintext, or `nil`.
    package func opened(_ sealed: some ContiguousBytes, additionalData: some ContiguousBytes) -> [UInt8]? {
        sealed.withUnsafeBytes { sealed in
            additionalData.withUnsafeBytes { additionalData in
                guard let size = Self.openedSize(of: sealed) else { return nil }
                var valid = false
                let output = [UInt8](unsafeUninitializedCapacity: size) { output, count in
                    valid = open(sealed, additionalData: additionalData, into: UnsafeMutableRawBufferPointer(output))
                    count = size
                }
                return valid ? output : nil
            }
        }
    }
}

/// A typed pointer to the bytes of `buffer` for the C functions; a valid address for no bytes.
private func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
    (buffer.baseAddress ?? UnsafeRawPointer(emptyCipherBytes)).assumingMemoryBound(to: UInt8.self)
}

private func bytes(_ buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
    (buffer.baseAddress ?? emptyCipherBytes).assumingMemoryBound(to: UInt8.self)
}

// Never read through or freed; an address for empty buffers.
nonisolated(unsafe) private let emptyCipherBytes = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
