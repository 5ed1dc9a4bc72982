import CairnStorage
import Foundation

/// How a uniqueness constraint's or an index's key is made from a stored record: each keyed
/// attribute's field read by its native type (``NativeValue``) and appended in order.
///
/// The bytes are those of the key a model's values give (``Store/EntityTables/UniqueConstraint``),
/// without a model: a save reads the keys of stored rows with it, and `cairn verify` checks
/// every key entry against its row's values without the app's models.
///
/// ```swift
/// let email = RecordKey.Part(tag: 2, type: String.self, isOptional: false, defaultValue: nil)
/// let key = try RecordKey(parts: [email], isUnique: true).key(of: reader)
/// ```
struct RecordKey {
    /// One keyed attribute.
    struct Part {
        /// Its field in the record.
        var tag: UInt32
        /// Its type, or its optional's wrapped type.
        var type: any NativeValue.Type
        /// Whether the attribute is an optional (keyed with a presence byte; an absent field is `nil`).
        var isOptional: Bool
        /// The value of a non-optional attribute whose field is absent (a row stored before the
        /// attribute existed); `nil` when such a field is damage.
        var defaultValue: (any NativeValue)?
        /// For an attribute keyed by its keyed hash (a sensitive attribute in an encrypted
        /// store), the store's hasher; `nil` for one keyed by its value.
        var hasher: KeyHasher? = nil
    }

    let parts: [Part]
    /// Whether this is a uniqueness constraint: a record whose values include one not equal to
    /// itself (a NaN) has no key in it.
    let isUnique: Bool

    /// The key of the row `record` holds; empty when it has none (see ``isUnique``).
    ///
    /// - Throws: `StorageError` `.damagedRecord` when a keyed field is missing without a default
    ///   or holds no valid value of its type.
    func key(of record: RecordReader) throws(StorageError) -> [UInt8] {
        var builder = KeyBuilder()
        var equalsItself = true
        for part in parts {
            let field = record.payload(tag: part.tag)
            let holds = try builder.appendComponent(hashedWith: part.hasher) { (key) throws(StorageError) in
                try part.type.appendKey(of: field, part: part, to: &key)
            }
            if !holds { equalsItself = false }
        }
        return isUnique && !equalsItself ? [] : builder.finalized()
    }
}

extension NativeValue {
    /// Reads a keyed field of this type (or its absence) and appends its key; returns whether the
    /// value equals itself (see ``KeyComponent/equalsItself()``).
    fileprivate static func appendKey(
        of field: FieldPayload?, part: RecordKey.Part, to key: inout KeyBuilder
    ) throws(StorageError) -> Bool {
        let stored = try field.map { (field) throws(StorageError) in try Self(fieldPayload: field) }
        if part.isOptional {
            stored.appendKey(to: &key)
            return stored.equalsItself()
        }
        guard let value = stored ?? part.defaultValue as? Self else {
            throw StorageError.damagedRecord("A stored record has no value for a keyed \(Self.self) attribute.")
        }
        value.appendKey(to: &key)
        return value.equalsItself()
    }
}
