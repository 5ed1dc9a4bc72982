/// A named LMDB database ("table") of an open environment.
///
/// A `Table` is a cheap value of plain bytes: the table's interned name, its flags and LMDB's
/// handle number (copying it retains nothing). Get one from
/// ``LMDBEnvironment/openTable(_:flags:create:)``; it stays valid while its environment is open.
///
/// ```swift
/// let people = try environment.openTable("e/Person", create: true)!
/// try environment.write { txn in try txn.put([1], for: [0, 0, 0, 1], in: people) }
/// ```
package struct Table: Sendable, Hashable, CustomStringConvertible {
    /// The table's name, such as `e/Author`.
    ///
    /// ```swift
    /// print(table.name)   // "e/Author"
    /// ```
    package var name: String { internedName.text }
    /// The table's name, interned: a number, so that copying a table copies no string.
    let internedName: InternedName
    /// The flags the table was created with.
    ///
    /// ```swift
    /// if table.flags.contains(.duplicateSort) { … }
    /// ```
    package let flags: TableFlags
    /// LMDB's handle (`MDB_dbi`). Only Storage reads it.
    package let handle: UInt32
    /// The environment the handle belongs to: a handle number means nothing in another store.
    let environment: UInt32
    /// Whether the table's values are sealed (an encrypted store's table that
    /// ``StorageConfiguration/sealedTables`` names): written and read through ``ValueCipher``.
    ///
    /// ```swift
    /// if table.isSealed { … }   // its values on disk are ciphertext
    /// ```
    package let isSealed: Bool

    /// The same table with its values read and written as they are stored: ciphertext in a
    /// sealed table. For copying values without opening them, and for tests that damage them.
    ///
    /// ```swift
    /// let stored = try txn.get(key, in: table.asStored)   // the sealed bytes
    /// ```
    package var asStored: Table {
        Table(name: name, flags: flags, handle: handle, environment: environment, isSealed: false)
    }

    /// The table's name.
    ///
    /// ```swift
    /// print(table)   // "e/Author"
    /// ```
    package var description: String { name }

    /// A table value for LMDB's handle `handle` in the environment numbered `environment`.
    init(name: String, flags: TableFlags, handle: UInt32, environment: UInt32, isSealed: Bool = false) {
        precondition(!isSealed || !flags.contains(.duplicateSort), "Table: a table with duplicate keys cannot be sealed")
        internedName = InternedName(name)
        self.flags = flags
        self.handle = handle
        self.environment = environment
        self.isSealed = isSealed
    }
}

/// How a table orders and stores its entries. Fixed when the table is created.
///
/// ```swift
/// let index = try environment.openTable("i/Book/year", flags: [.duplicateSort, .duplicateFixed], create: true)
/// ```
package struct TableFlags: OptionSet, Sendable, Hashable {
    /// The flags as LMDB's `MDB_*` bits.
    ///
    /// ```swift
    /// let bits = TableFlags.duplicateSort.rawValue   // 0x04
    /// ```
    package let rawValue: UInt32
    /// Creates flags from LMDB's `MDB_*` bits.
    ///
    /// ```swift
    /// let flags = TableFlags(rawValue: 0x04)   // .duplicateSort
    /// ```
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Several values per key, kept sorted (`MDB_DUPSORT`). Values are at most 511 bytes.
    ///
    /// ```swift
    /// let edges = try environment.openTable("r/Author/books", flags: .duplicateSort, create: true)
    /// ```
    package static let duplicateSort = TableFlags(rawValue: 0x04)
    /// With ``duplicateSort``: all values of a key have the same size (`MDB_DUPFIXED`), which
    /// allows bulk reads of a key's values.
    ///
    /// ```swift
    /// let index = try environment.openTable("i/Book/year", flags: [.duplicateSort, .duplicateFixed], create: true)
    /// ```
    package static let duplicateFixed = TableFlags(rawValue: 0x10)
    /// Keys are native `UInt32`/`UInt64` integers compared numerically (`MDB_INTEGERKEY`).
    ///
    /// ```swift
    /// let counters = try environment.openTable("counters", flags: .integerKey, create: true)
    /// ```
    package static let integerKey = TableFlags(rawValue: 0x08)
    /// With ``duplicateSort``: values are native integers compared numerically (`MDB_INTEGERDUP`).
    ///
    /// ```swift
    /// let ids = try environment.openTable("ids", flags: [.duplicateSort, .duplicateFixed, .integerDuplicates], create: true)
    /// ```
    package static let integerDuplicates = TableFlags(rawValue: 0x20)

    /// The flags LMDB stores with a table (`MDB_REVERSEKEY` … `MDB_REVERSEDUP`).
    static let persistent: UInt32 = 0x7E
}

/// How a put treats an existing key.
///
/// ```swift
/// let inserted = try txn.put(record, for: key, in: table, options: .noOverwrite)
/// ```
package struct PutOptions: OptionSet, Sendable, Hashable {
    /// The options as LMDB's `MDB_*` bits.
    ///
    /// ```swift
    /// let bits = PutOptions.noOverwrite.rawValue   // 0x10
    /// ```
    package let rawValue: UInt32
    /// Creates options from LMDB's `MDB_*` bits.
    ///
    /// ```swift
    /// let options = PutOptions(rawValue: 0x10)   // .noOverwrite
    /// ```
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Do nothing if the key exists (`MDB_NOOVERWRITE`); `put` returns `false`.
    ///
    /// ```swift
    /// let inserted = try txn.put(rowID, for: uniqueKey, in: uniques, options: .noOverwrite)
    /// ```
    package static let noOverwrite = PutOptions(rawValue: 0x10)
    /// In a ``TableFlags/duplicateSort`` table, do nothing if the key/value pair exists
    /// (`MDB_NODUPDATA`); `put` returns `false`.
    ///
    /// ```swift
    /// let added = try txn.put(target, for: owner, in: edges, options: .noDuplicateData)
    /// ```
    package static let noDuplicateData = PutOptions(rawValue: 0x20)
    /// The key is greater than every key in the table (`MDB_APPEND`): a fast path for sequential
    /// keys. If it is not, `put` returns `false` and writes nothing.
    ///
    /// ```swift
    /// try txn.put(record, for: nextRowKey, in: rows, options: .append)
    /// ```
    package static let append = PutOptions(rawValue: 0x20000)
    /// The value is greater than every value of its key (`MDB_APPENDDUP`). If it is not, `put`
    /// returns `false` and writes nothing.
    ///
    /// ```swift
    /// try txn.put(nextRowID, for: indexKey, in: index, options: .appendDuplicate)
    /// ```
    package static let appendDuplicate = PutOptions(rawValue: 0x40000)
}

/// A range of keys in a table's order, each end inclusive, exclusive or open.
///
/// ```swift
/// let range = KeyRange(from: .inclusive([0x10]), to: .exclusive([0x20]))
/// try txn.scan(table, range, direction: .backward) { key, value in print(Array(key)); return true }
/// ```
package struct KeyRange: Sendable, Hashable {
    /// One end of a range.
    ///
    /// ```swift
    /// let range = KeyRange(from: .inclusive([1]), to: .exclusive([2]))
    /// ```
    package enum Bound: Sendable, Hashable {
        case inclusive([UInt8])
        case exclusive([UInt8])

        package var key: [UInt8] {
            switch self {
            case .inclusive(let key), .exclusive(let key): key
            }
        }

        var isInclusive: Bool {
            if case .inclusive = self { return true }
            return false
        }
    }

    /// The smallest keys of the range, or `nil` for no lower limit.
    ///
    /// ```swift
    /// range.lower = .exclusive(lastSeenKey)
    /// ```
    package var lower: Bound?
    /// The largest keys of the range, or `nil` for no upper limit.
    ///
    /// ```swift
    /// range.upper = .inclusive(maximumKey)
    /// ```
    package var upper: Bound?

    /// Creates a range from its two ends.
    ///
    /// ```swift
    /// let range = KeyRange(from: .inclusive([1]), to: nil)
    /// ```
    package init(from lower: Bound? = nil, to upper: Bound? = nil) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key of the table.
    ///
    /// ```swift
    /// try txn.scan(table, .all) { _, _ in true }
    /// ```
    package static let all = KeyRange()

    /// The keys that start with `prefix`, in a table ordered by bytes (not ``TableFlags/integerKey``).
    ///
    /// ```swift
    /// try txn.scan(table, .prefix([0x01, 0x02])) { key, _ in print(Array(key)); return true }
    /// ```
    package static func prefix(_ prefix: [UInt8]) -> KeyRange {
        KeyRange(from: .inclusive(prefix), to: successor(of: prefix).map { .exclusive($0) })
    }

    /// The smallest byte string greater than every string that starts with `prefix`, or `nil`
    /// when there is none (the prefix is empty or all `0xFF`).
    ///
    /// ```swift
    /// KeyRange.successor(of: [0x61, 0xFF])   // [0x62]
    /// ```
    package static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}

/// Which way a scan walks a table.
///
/// ```swift
/// try txn.scan(table, .all, direction: .backward) { _, _ in true }
/// ```
package enum ScanDirection: Sendable, Hashable {
    case forward
    case backward
}

/// The shape of one table's B-tree.
///
/// ```swift
/// let statistics = try txn.statistics(of: table)
/// print(statistics.entries, statistics.depth)
/// ```
package struct TableStatistics: Sendable, Hashable {
    /// The number of entries (key/value pairs; each duplicate counts).
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).entries)
    /// ```
    package var entries: Int
    /// The height of the B-tree.
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).depth)
    /// ```
    package var depth: Int
    /// The number of internal pages.
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).branchPages)
    /// ```
    package var branchPages: Int
    /// The number of leaf pages.
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).leafPages)
    /// ```
    package var leafPages: Int
    /// The number of overflow pages, which hold large values.
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).overflowPages)
    /// ```
    package var overflowPages: Int
    /// The size of a page in bytes.
    ///
    /// ```swift
    /// print(try txn.statistics(of: table).pageSize)   // 4096
    /// ```
    package var pageSize: Int
}
