import CairnStorage
import Foundation
import Synchronization

/// The identity of a stored model: which store, which entity, which row. Safe to pass between
/// threads and actors, to hash, and to encode.
///
/// A model inserted into a context has a temporary identifier until its first successful save,
/// when it gets a permanent one, as in SwiftData.
///
/// ```swift
/// let id = book.persistentModelID
/// let sameBook = otherContext.model(for: id) as? Book
/// ```
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, Identifiable,
    CustomStringConvertible
{
    /// The stable identity of a model within its store, as SwiftData's `PersistentIdentifier.ID`:
    /// equal for equal identifiers, usable as a dictionary key or a SwiftUI list identity.
    ///
    /// ```swift
    /// var titles: [PersistentIdentifier.ID: String] = [:]
    /// titles[book.persistentModelID.id] = book.title
    /// ```
    public struct ID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The identifier it stands for.
        let identifier: PersistentIdentifier

        /// Orders as the identifiers do.
        ///
        /// ```swift
        /// let ordered = ids.map(\.id).sorted()
        /// ```
        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.identifier < rhs.identifier }

        /// The identifier's description.
        ///
        /// ```swift
        /// print(id.id)   // "Book/42"
        /// ```
        public var description: String { identifier.description }

        /// Decodes what ``encode(to:)`` wrote: an identifier.
        ///
        /// ```swift
        /// let id = try JSONDecoder().decode(PersistentIdentifier.ID.self, from: data)
        /// ```
        public init(from decoder: any Decoder) throws {
            identifier = try PersistentIdentifier(from: decoder)
        }

        /// Encodes the identifier it stands for.
        ///
        /// ```swift
        /// let data = try JSONEncoder().encode(book.persistentModelID.id)
        /// ```
        public func encode(to encoder: any Encoder) throws { try identifier.encode(to: encoder) }

        init(_ identifier: PersistentIdentifier) { self.identifier = identifier }
    }

    /// The value that identifies the model within its store (`Identifiable`), as in SwiftData.
    ///
    /// ```swift
    /// ForEach(books.map(\.persistentModelID)) { id in … }   // identified by id.id
    /// ```
    public var id: ID { ID(self) }

    /// The name of the model's entity.
    ///
    /// ```swift
    /// id.entityName   // "Book"
    /// ```
    public var entityName: String { entity.text }
    /// The identifier of the store that holds the model; `nil` while the identifier is temporary.
    ///
    /// ```swift
    /// id.storeIdentifier   // "5D5C…"
    /// ```
    public var storeIdentifier: String? { store?.text }
    /// The entity's name, interned: identifiers are copied at every step of a save and a fetch,
    /// and with two strings in them every copy would be two retains (see ``InternedName``).
    let entity: InternedName
    /// The store's interned number (``noStore`` when there is none) and, in the top bit, whether
    /// the identifier is temporary: sixteen bytes in all, where the store as an optional and the
    /// kind as an enum took twenty-five, thirty-two with padding, in every list of identifiers a
    /// save makes and in every model's state.
    private let storeAndKind: UInt32
    /// The row id, or the temporary number.
    private let value: UInt64

    private static let temporaryBit: UInt32 = 1 << 31
    private static let noStore: UInt32 = InternedName.numberLimit - 1

    /// The store's identifier, interned; `nil` while the identifier is temporary.
    var store: InternedName? {
        let number = storeAndKind & ~Self.temporaryBit
        return number == Self.noStore ? nil : InternedName(number: number)
    }

    /// The row, or the temporary number.
    var kind: Kind { storeAndKind & Self.temporaryBit != 0 ? .temporary(value) : .row(value) }

    enum Kind: Hashable, Comparable, Codable, Sendable {
        /// A saved model's row in its entity's table.
        case row(UInt64)
        /// An inserted model that has not been saved yet: a number unique in this process,
        /// increasing in the order models were first given one.
        case temporary(UInt64)

        static func < (lhs: Kind, rhs: Kind) -> Bool {
            switch (lhs, rhs) {
            case (.row(let a), .row(let b)): a < b
            case (.row, .temporary): true
            case (.temporary, .row): false
            case (.temporary(let a), .temporary(let b)): a < b
            }
        }
    }

    /// The identifier of a saved model. Interns both names: where identifiers are made per row,
    /// pass interned names (``init(entity:store:rowID:)``).
    init(entityName: String, storeIdentifier: String, rowID: UInt64) {
        self.init(entity: InternedName(entityName), store: InternedName(storeIdentifier), rowID: rowID)
    }

    /// The identifier of a saved model, from interned names.
    init(entity: InternedName, store: InternedName, rowID: UInt64) {
        self.init(entity: entity, store: store, kind: .row(rowID))
    }

    /// A new temporary identifier for an inserted model.
    static func temporary(entity: InternedName) -> PersistentIdentifier {
        PersistentIdentifier(entity: entity, store: nil, kind: .temporary(TemporaryNumbers.next()))
    }

    /// Hashes the row (or temporary number) only: identifiers are hashed in every identity-map
    /// and change-set lookup, and hashing the two strings cost more than the rest of a lookup.
    /// Equal identifiers still hash equally; the rare same-row pair of two entities is told
    /// apart by `==`.
    ///
    /// ```swift
    /// var seen: Set<PersistentIdentifier> = []
    /// seen.insert(book.persistentModelID)
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeAndKind & Self.temporaryBit != 0 ? ~value : value)
    }

    private init(entity: InternedName, store: InternedName?, kind: Kind) {
        self.entity = entity
        let storeNumber = store?.number ?? Self.noStore
        switch kind {
        case .row(let row):
            (storeAndKind, value) = (storeNumber, row)
        case .temporary(let number):
            (storeAndKind, value) = (storeNumber | Self.temporaryBit, number)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case entityName, storeIdentifier, kind
    }

    /// Decodes an identifier encoded by ``encode(to:)``.
    ///
    /// ```swift
    /// let id = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            entity: InternedName(try container.decode(String.self, forKey: .entityName)),
            store: try container.decodeIfPresent(String.self, forKey: .storeIdentifier).map { InternedName($0) },
            kind: try container.decode(Kind.self, forKey: .kind))
    }

    /// Encodes the entity's name, the store's identifier and the row (or temporary number).
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(book.persistentModelID)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entityName, forKey: .entityName)
        try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
        try container.encode(kind, forKey: .kind)
    }

    /// Whether the identifier is temporary: its model has not been saved yet.
    ///
    /// ```swift
    /// context.insert(book)
    /// book.persistentModelID.isTemporary   // true until context.save()
    /// ```
    public var isTemporary: Bool { storeAndKind & Self.temporaryBit != 0 }

    /// The model's row id in its entity's table, or `nil` while the identifier is temporary.
    var rowID: UInt64? { isTemporary ? nil : value }

    /// Orders saved models' identifiers by store identifier, entity name and row, and puts the
    /// temporary identifiers of models not yet saved after them, by entity name and in the order
    /// they were made: the order models were first saved in, inserted ones as they will be.
    ///
    /// ```swift
    /// let ordered = ids.sorted()
    /// ```
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        (lhs.isTemporary ? 1 : 0, lhs.storeIdentifier ?? "", lhs.entityName, lhs.kind) < (
            rhs.isTemporary ? 1 : 0, rhs.storeIdentifier ?? "", rhs.entityName, rhs.kind
        )
    }

    /// The entity and the row (or `temporary`).
    ///
    /// ```swift
    /// print(id)   // "Book/42"
    /// ```
    public var description: String {
        switch kind {
        case .row(let rowID): "\(entityName)/\(rowID)"
        case .temporary(let number): "\(entityName)/temporary-\(number)"
        }
    }
}

/// The process-wide source of temporary identifier numbers: every inserted model takes one. An
/// atomic counter where the platform has `Synchronization` (a lock and its unlock were two atomic
/// operations and about 80 instructions per insert); a locked one before it. Only one of the two
/// is ever used in a process, so numbers never repeat.
private enum TemporaryNumbers {
    nonisolated(unsafe) private static var last: UInt64 = 0
    private static let lock = NSLock()

    static func next() -> UInt64 {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return AtomicTemporaryNumbers.last.wrappingAdd(1, ordering: .relaxed).newValue
        }
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private enum AtomicTemporaryNumbers {
    static let last = Atomic<UInt64>(0)
}
