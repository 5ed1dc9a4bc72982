import CairnStorage
import Foundation

extension Store.EntityTables {
    /// The full-text index of one `@Attribute(.spotlight)` text attribute: its table
    /// (``PostingLayout``), where its text is read from a model and from a stored record, and how
    /// a term is stored (itself, or in an encrypted store its keyed hash).
    ///
    /// ```swift
    /// for index in tables.keys.texts where model._$state.isChanged(index.propertyIndex) { … }
    /// ```
    final class TextIndex: @unchecked Sendable {
        let attribute: String
        /// The attribute's property index (what a model's change bits name).
        let propertyIndex: Int
        /// The attribute's field tag in its records.
        let tag: UInt32
        let keyPath: AnyKeyPath
        let table: Table
        /// In an encrypted store, what terms are hashed with; `nil` in a plaintext store.
        let hasher: KeyHasher?

        init(attribute: Schema.Attribute, tag: UInt32, table: Table, hasher: KeyHasher?) {
            self.attribute = attribute.name
            propertyIndex = attribute.index!
            self.tag = tag
            keyPath = attribute.keyPath
            self.table = table
            self.hasher = hasher
        }

        /// Whether `attribute` can have a full-text index: a stored `String` or `String?` marked
        /// `.spotlight`, kept in its record. Others marked `.spotlight` are left as SwiftData
        /// leaves them on platforms without Spotlight.
        static func indexes(_ attribute: Schema.Attribute) -> Bool {
            attribute.options.contains(.spotlight) && !attribute.isTransient
                && !attribute.options.contains(.externalStorage)
                && (attribute.valueType == String.self || attribute.valueType == String?.self)
        }

        /// The attribute's text in `model` (read through its getter, which loads it).
        func text(of model: any PersistentModel) -> String? {
            model[keyPath: keyPath] as? String
        }

        /// The attribute's text in a stored record.
        func text(ofRecord reader: RecordReader) throws(StorageError) -> String? {
            try reader.read(String?.self, tag: tag)
        }

        /// How `term` is stored: itself, or its keyed hash in hexadecimal (24 bytes, no zero byte).
        func storedTerm(_ term: [UInt8]) -> [UInt8] {
            guard let hasher else { return term }
            let digits = Array("0123456789abcdef".utf8)
            return hasher.digest(of: term).prefix(12).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
        }
    }
}
