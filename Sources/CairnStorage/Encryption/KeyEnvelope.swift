import Crypto
import _CryptoExtras

/// An encrypted store's data key, wrapped by the user's secret, as the store keeps it: the one
/// owner of its layout.
///
/// Stored in LMDB's main table under a key starting with a zero byte (no table name can), beside
/// the commit marker, so it is read before any table is opened:
///
/// | offset | bytes | what |
/// |---:|---:|---|
/// | 0 | 1 | layout version, 1 |
/// | 1 | 1 | how the secret becomes a key: 0 used as it is (a 32-byte key), 1 scrypt |
/// | 2 | 1 | scrypt's log₂ N (0 for a key) |
/// | 3 | 1 | scrypt's r |
/// | 4 | 1 | scrypt's p |
/// | 5 | 16 | scrypt's salt (zeros for a key) |
/// | 21 | 4 | the data key's generation, big-endian: 1 at creation, one more at each rotation |
/// | 25 | 61 | the data key, sealed as a ``ValueCipher`` value under the secret's key |
///
/// The sealed data key authenticates the first 25 bytes too (its additional data is
/// `cairn data key` and them), so no header field can be changed unnoticed. A secret that does
/// not open it is the wrong one.
///
/// ```swift
/// let envelope = try KeyEnvelope.make(dataKey: key, secret: .passphrase("…"), generation: 1)
/// let dataKey = try KeyEnvelope(decoding: envelope.encoded(), path: path).unwrap(with: .passphrase("…"), path: path)
/// ```
package struct KeyEnvelope: Sendable, Equatable {
    /// Its key in LMDB's main table.
    package static let storageKey: [UInt8] = [0x00] + Array("cairn.encryption".utf8)
    /// Its size in bytes.
    static let size = 25 + 32 + ValueCipher.overhead
    private static let version: UInt8 = 1

    /// How a secret becomes the key that wraps the data key.
    package enum Derivation: Sendable, Equatable {
        /// A 32-byte key, used as it is.
        case none
        /// scrypt with cost N = 2^`logN`, block size `r`, parallelism `p`, and `salt`.
        case scrypt(logN: UInt8, r: UInt8, p: UInt8, salt: [UInt8])
    }

    /// scrypt's cost for new passphrases: N = 2¹⁵, r = 8, p = 1 (32 MiB, about 0.1 s here).
    static let passphraseCost = (logN: UInt8(15), r: UInt8(8), p: UInt8(1))

    /// How the secret is stretched.
    package let derivation: Derivation
    /// The data key's generation.
    package let generation: UInt32
    /// The data key, sealed.
    let wrapped: [UInt8]

    /// Wraps `dataKey` with `secret`: a new random salt for a passphrase.
    ///
    /// ```swift
    /// let envelope = try KeyEnvelope.make(dataKey: key, secret: .key(userKey), generation: 1)
    /// ```
    /// - Throws: ``StorageError`` `.invalidSize` for a key that is not 32 bytes or an empty passphrase.
    package static func make(dataKey: [UInt8], secret: StoreEncryption, generation: UInt32) throws(StorageError)
        -> KeyEnvelope
    {
        let derivation: Derivation
        switch secret {
        case .key: derivation = .none
        case .passphrase:
            var generator = SystemRandomNumberGenerator()
            let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let cost = passphraseCost
            derivation = .scrypt(logN: cost.logN, r: cost.r, p: cost.p, salt: salt)
        }
        let header = Self.header(derivation, generation)
        let wrappingKey = try Self.wrappingKey(secret, derivation)
        var nonces = NonceSequence()
        let wrapped = ValueCipher(dataKey: wrappingKey, hardware: false).sealed(
            dataKey, additionalData: additionalData(header), nonces: &nonces)
        return KeyEnvelope(derivation: derivation, generation: generation, wrapped: wrapped)
    }

    private init(derivation: Derivation, generation: UInt32, wrapped: [UInt8]) {
        self.derivation = derivation
        self.generation = generation
        self.wrapped = wrapped
    }

    /// Reads an envelope as the store keeps it.
    ///
    /// ```swift
    /// let envelope = try KeyEnvelope(decoding: stored, path: path)
    /// ```
    /// - Throws: ``StorageError`` `.damaged` when the bytes are not an envelope of a known layout.
    package init(decoding bytes: some Collection<UInt8>, path: String) throws(StorageError) {
        let bytes = Array(bytes)
        func damaged(_ what: String) -> StorageError {
            StorageError(
                code: .damaged,
                message: "The store's encryption record is damaged (\(what)), so its data key cannot be read. "
                    + "Restore the store from a backup.",
                path: path)
        }
        guard bytes.count == Self.size else { throw damaged("\(bytes.count) bytes, not \(Self.size)") }
        guard bytes[0] == Self.version else { throw damaged("layout \(bytes[0]), not \(Self.version)") }
        switch bytes[1] {
        case 0: derivation = .none
        case 1:
            guard (10...22).contains(bytes[2]), bytes[3] >= 1, bytes[4] >= 1 else {
                throw damaged("scrypt cost 2^\(bytes[2]), r \(bytes[3]), p \(bytes[4])")
            }
            derivation = .scrypt(logN: bytes[2], r: bytes[3], p: bytes[4], salt: Array(bytes[5..<21]))
        default: throw damaged("key derivation \(bytes[1])")
        }
        generation = bytes[21..<25].reduce(0) { $0 << 8 | UInt32($1) }
        wrapped = Array(bytes[25...])
    }

    /// The envelope's bytes.
    ///
    /// ```swift
    /// try txn.put(envelope.encoded(), for: KeyEnvelope.storageKey, in: main)
    /// ```
    package func encoded() -> [UInt8] { Self.header(derivation, generation) + wrapped }

    /// The data key, opened with `secret`.
    ///
    /// ```swift
    /// let dataKey = try envelope.unwrap(with: .key(userKey), path: path)
    /// ```
    /// - Throws: ``StorageError`` `.wrongEncryptionKey` when `secret` does not open it,
    ///   `.invalidSize` for a key that is not 32 bytes or an empty passphrase.
    package func unwrap(with secret: StoreEncryption, path: String) throws(StorageError) -> [UInt8] {
        let kind = { () -> String in if case .passphrase = secret { "passphrase" } else { "key" } }()
        let wrongKind: Bool
        switch (secret, derivation) {
        case (.key, .scrypt), (.passphrase, .none): wrongKind = true
        default: wrongKind = false
        }
        let wrappingKey = wrongKind ? nil : try Self.wrappingKey(secret, derivation)
        let header = Self.header(derivation, generation)
        guard let wrappingKey,
            let dataKey = ValueCipher(dataKey: wrappingKey, hardware: false).opened(
                wrapped, additionalData: Self.additionalData(header)),
            dataKey.count == 32
        else {
            let expected = if case .none = derivation { "a 32-byte key" } else { "a passphrase" }
            throw StorageError(
                code: .wrongEncryptionKey,
                message: "The \(kind) given does not open this encrypted store (it was encrypted with \(expected)). "
                    + "Open it with the \(kind) it was encrypted with; nothing was read or written.",
                path: path)
        }
        return dataKey
    }

    private static func header(_ derivation: Derivation, _ generation: UInt32) -> [UInt8] {
        var header: [UInt8] = [version]
        switch derivation {
        case .none: header += [0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
        case .scrypt(let logN, let r, let p, let salt): header += [1, logN, r, p] + salt
        }
        return header + withUnsafeBytes(of: generation.bigEndian) { Array($0) }
    }

    private static func additionalData(_ header: [UInt8]) -> [UInt8] { Array("cairn data key".utf8) + header }

    /// The key that wraps the data key: the secret itself, or scrypt of the passphrase.
    private static func wrappingKey(_ secret: StoreEncryption, _ derivation: Derivation) throws(StorageError)
        -> [UInt8]
    {
        switch (secret, derivation) {
        case (.key, _):
            return try secret.stretched(salt: [], logN: 0, r: 0, p: 0)
        case (.passphrase, .scrypt(let logN, let r, let p, let salt)):
            return try secret.stretched(salt: salt, logN: logN, r: r, p: p)
        case (.passphrase, .none):
            preconditionFailure("KeyEnvelope: a passphrase for a key's envelope is refused before this")
        }
    }
}
