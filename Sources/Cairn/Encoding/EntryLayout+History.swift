import Foundation

extension EntryLayout {
    /// One group of a history value: the rows of one entity that one commit changed one way, as
    /// runs of consecutive row ids, with the fields changed (for updates and rewritten edges).
    package struct HistoryGroup: Equatable {
        /// Rows `first ..< first + count`.
        package struct Run: Equatable {
            package var first: UInt64
            package var count: UInt64

            package init(first: UInt64, count: UInt64) {
                self.first = first
                self.count = count
            }
        }

        /// What happened to the rows: 0 inserted, 1 updated, 2 deleted, 3 edges rewritten.
        package let kind: UInt8
        package let entity: String
        /// Ascending, apart (each starts after the previous one's end), none empty.
        package let runs: [Run]
        /// The fields changed in every row of the group, as a bit set over the entity's
        /// ``HistoryEntry/fieldNames``: bit `i` (of byte `i / 8`, least significant first) names
        /// the `i`th. Empty for inserts and deletes, and in entries of the earlier formats.
        package let fields: [UInt8]

        /// A group of `runs`, which must ascend apart.
        package init(kind: UInt8, entity: String, runs: [Run], fields: [UInt8] = []) {
            self.kind = kind
            self.entity = entity
            self.runs = runs
            self.fields = fields
        }

        /// A group of `rows`, ascending, each once.
        ///
        /// ```swift
        /// let group = EntryLayout.HistoryGroup(kind: 0, entity: "Book", rows: [1, 2, 3, 7])   // two runs
        /// ```
        package init(kind: UInt8, entity: String, rows: [UInt64], fields: [UInt8] = []) {
            var runs: [Run] = []
            for row in rows {
                if let last = runs.last, last.first &+ last.count == row {
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append(Run(first: row, count: 1))
                }
            }
            self.init(kind: kind, entity: entity, runs: runs, fields: fields)
        }

        /// Every row, ascending.
        package var rows: [UInt64] { runs.flatMap { $0.first..<($0.first &+ $0.count) } }

        /// The positions of the bits set in ``fields``, ascending.
        package var fieldPositions: [Int] {
            fields.indices.flatMap { byte in (0..<8).filter { fields[byte] & (1 << $0) != 0 }.map { byte * 8 + $0 } }
        }
    }

    /// The values of a deleted row's `.preserveValueOnDeletion` attributes: a record (sealed for
    /// no key) holding only those fields, under their tags.
    package struct Tombstone: Equatable {
        package let entity: String
        package let row: UInt64
        package let record: [UInt8]

        package init(entity: String, row: UInt64, record: [UInt8]) {
            self.entity = entity
            self.row = row
            self.record = record
        }
    }

    /// One commit's history value, whole.
    package struct HistoryEntry: Equatable {
        package static func == (lhs: HistoryEntry, rhs: HistoryEntry) -> Bool {
            lhs.author == rhs.author && lhs.process?.identifier == rhs.process?.identifier
                && lhs.process?.bundle == rhs.process?.bundle && lhs.timestamp == rhs.timestamp
                && lhs.groups == rhs.groups && lhs.fieldNames == rhs.fieldNames && lhs.tombstones == rhs.tombstones
        }

        /// The saving context's ``ModelContext/author``.
        package var author: String?
        /// The saving process's identifier and bundle identifier (its name where it has none).
        package var process: (identifier: UInt64, bundle: String)?
        /// When the commit was written, in microseconds since 1970 (0 in the earlier formats).
        package var timestamp: UInt64
        package var groups: [HistoryGroup]
        /// The names the groups' field bit sets stand for, per entity.
        package var fieldNames: [String: [String]]
        package var tombstones: [Tombstone]

        package init(
            author: String? = nil, process: (identifier: UInt64, bundle: String)? = nil, timestamp: UInt64 = 0,
            groups: [HistoryGroup], fieldNames: [String: [String]] = [:], tombstones: [Tombstone] = []
        ) {
            self.author = author
            self.process = process
            self.timestamp = timestamp
            self.groups = groups
            self.fieldNames = fieldNames
            self.tombstones = tombstones
        }
    }

    /// The first byte of a history value in the run format; a value in the first format starts
    /// with a kind (0…3) instead.
    static let historyRunsMarker: UInt8 = 0xC1
    /// The first byte of a history value in the current format (author, process, time, fields,
    /// tombstones).
    static let historyEntryMarker: UInt8 = 0xC2

    private static let fieldNamesKind: UInt8 = 4
    private static let tombstonesKind: UInt8 = 5

    /// A commit's history value (`h` table), byte by byte (`Docs/Design.md`, "History"):
    ///
    /// - the marker `0xC2`; a flags byte (bit 0: an author follows, bit 1: a process); the time
    ///   in microseconds since 1970 (varint); the author's UTF-8 length (varint) and bytes, when
    ///   flagged; the process identifier (varint) and the bundle identifier's UTF-8 length
    ///   (varint) and bytes, when flagged;
    /// - then groups to the end, each starting with its kind and the entity name's length (1
    ///   byte, at most 255) and UTF-8 bytes:
    ///   - kinds 0…3 (inserted, updated, deleted, edges): the field bit set's length (varint) and
    ///     bytes, the number of runs (varint), and each run of consecutive rows as the gap from the
    ///     previous run's end (varint; the first run's from 0) and its length minus 1 (varint);
    ///   - kind 4, the names the entity's bit sets stand for: their count (varint), then each
    ///     name's UTF-8 length (varint) and bytes;
    ///   - kind 5, tombstones: their count (varint), then each row (varint), its record's length
    ///     (varint) and the record;
    /// - last, 4 bytes little-endian: `CRC-32C(everything before) XOR CRC-32C(key)`, the key being
    ///   the commit's history key, so a flipped bit, or an entry under another commit's key, does
    ///   not read as another commit's changes.
    ///
    /// A million new rows of one entity take a few bytes; a hundred thousand rows updated alike, a
    /// few bytes more than their runs.
    ///
    /// ```swift
    /// let value = EntryLayout.historyValue(HistoryEntry(groups: [HistoryGroup(kind: 0, entity: "Book", rows: [1, 2, 3])]), commit: txn.id)
    /// ```
    package static func historyValue(_ entry: HistoryEntry, commit: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        // Room for the whole value at once: grown from two bytes, a one-model save's entry was
        // reallocated six times.
        bytes.reserveCapacity(estimatedSize(of: entry))
        bytes += [historyEntryMarker, (entry.author == nil ? 0 : 1) | (entry.process == nil ? 0 : 2)]
        Varint.append(entry.timestamp, to: &bytes)
        if let author = entry.author {
            Varint.append(UInt64(author.utf8.count), to: &bytes)
            bytes += author.utf8
        }
        if let process = entry.process {
            Varint.append(process.identifier, to: &bytes)
            Varint.append(UInt64(process.bundle.utf8.count), to: &bytes)
            bytes += process.bundle.utf8
        }
        func appendEntity(_ kind: UInt8, _ entity: String) {
            let name = entity.utf8.prefix(255)
            bytes.append(kind)
            bytes.append(UInt8(name.count))
            bytes += name
        }
        for (entity, names) in entry.fieldNames.sorted(by: { $0.key < $1.key }) {
            appendEntity(fieldNamesKind, entity)
            Varint.append(UInt64(names.count), to: &bytes)
            for name in names {
                Varint.append(UInt64(name.utf8.count), to: &bytes)
                bytes += name.utf8
            }
        }
        for group in entry.groups {
            appendEntity(group.kind, group.entity)
            Varint.append(UInt64(group.fields.count), to: &bytes)
            bytes += group.fields
            Varint.append(UInt64(group.runs.count), to: &bytes)
            var end: UInt64 = 0
            for run in group.runs {
                Varint.append(run.first &- end, to: &bytes)
                Varint.append(run.count - 1, to: &bytes)
                end = run.first &+ run.count
            }
        }
        var byEntity: [String: [Tombstone]] = [:]
        for tombstone in entry.tombstones { byEntity[tombstone.entity, default: []].append(tombstone) }
        for (entity, tombstones) in byEntity.sorted(by: { $0.key < $1.key }) {
            appendEntity(tombstonesKind, entity)
            Varint.append(UInt64(tombstones.count), to: &bytes)
            for tombstone in tombstones {
                Varint.append(tombstone.row, to: &bytes)
                Varint.append(UInt64(tombstone.record.count), to: &bytes)
                bytes += tombstone.record
            }
        }
        let checksum = CRC32C.checksum(bytes) ^ CRC32C.checksum(historyKey(commit: commit))
        bytes += withUnsafeBytes(of: checksum.littleEndian, Array.init)
        return bytes
    }

    /// About how many bytes ``historyValue(_:commit:)`` writes for `entry` (the room it reserves).
    private static func estimatedSize(of entry: HistoryEntry) -> Int {
        var size = 24 + (entry.author?.utf8.count ?? 0) + (entry.process?.bundle.utf8.count ?? 0)
        for (entity, names) in entry.fieldNames {
            size += 4 + entity.utf8.count + names.reduce(0) { $0 + 2 + $1.utf8.count }
        }
        for group in entry.groups { size += 8 + group.entity.utf8.count + group.fields.count + 4 * group.runs.count }
        for tombstone in entry.tombstones { size += 12 + tombstone.entity.utf8.count + tombstone.record.count }
        return size
    }

    /// The entry of a stored history value, in any of its formats; `nil` when it does not parse
    /// (a reader of other commits' changes then treats every model as stale, which is correct,
    /// only slower; a reader of the public history reports the damage).
    ///
    /// ```swift
    /// let entry = EntryLayout.historyEntry(value, commit: commit)
    /// ```
    package static func historyEntry(_ value: UnsafeRawBufferPointer, commit: UInt64) -> HistoryEntry? {
        let bytes = Array(value)
        guard let first = bytes.first else { return HistoryEntry(groups: []) }
        switch first {
        case historyRunsMarker:
            var position = 1
            var groups: [HistoryGroup] = []
            while position < bytes.count {
                guard let group = readGroup(bytes, at: &position, withFields: false) else { return nil }
                groups.append(group)
            }
            return HistoryEntry(groups: groups)
        case historyEntryMarker:
            // The checksum first: nothing of a damaged entry is read.
            guard bytes.count >= 5 else { return nil }
            let content = Array(bytes[..<(bytes.count - 4)])
            let stored = bytes[(bytes.count - 4)...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard stored == CRC32C.checksum(content) ^ CRC32C.checksum(historyKey(commit: commit)) else { return nil }
            return currentFormatEntry(content)
        default: return firstFormatHistoryGroups(bytes).map { HistoryEntry(groups: $0) }
        }
    }

    /// Reads a length (varint) that must not exceed what is left of `bytes`.
    private static func readLength(_ bytes: [UInt8], at position: inout Int) -> Int? {
        guard let length = Varint.read(bytes, at: &position, end: bytes.count),
            length <= UInt64(bytes.count - position)
        else { return nil }
        return Int(length)
    }

    /// Reads `length` bytes as UTF-8 text.
    private static func readText(_ bytes: [UInt8], at position: inout Int, length: Int) -> String? {
        guard length <= bytes.count - position,
            let text = String(validating: bytes[position..<(position + length)], as: UTF8.self)
        else { return nil }
        position += length
        return text
    }

    /// Reads a group's entity name (the kind byte already read).
    private static func readEntity(_ bytes: [UInt8], at position: inout Int) -> String? {
        guard position < bytes.count else { return nil }
        let length = Int(bytes[position])
        position += 1
        return readText(bytes, at: &position, length: length)
    }

    private static func currentFormatEntry(_ bytes: [UInt8]) -> HistoryEntry? {
        var position = 1
        guard position < bytes.count else { return nil }
        let flags = bytes[position]
        position += 1
        guard flags & ~3 == 0, let timestamp = Varint.read(bytes, at: &position, end: bytes.count) else { return nil }
        var entry = HistoryEntry(timestamp: timestamp, groups: [])
        if flags & 1 != 0 {
            guard let length = readLength(bytes, at: &position),
                let author = readText(bytes, at: &position, length: length)
            else { return nil }
            entry.author = author
        }
        if flags & 2 != 0 {
            guard let identifier = Varint.read(bytes, at: &position, end: bytes.count),
                let length = readLength(bytes, at: &position),
                let bundle = readText(bytes, at: &position, length: length)
            else { return nil }
            entry.process = (identifier, bundle)
        }
        while position < bytes.count {
            switch bytes[position] {
            case 0...3:
                guard let group = readGroup(bytes, at: &position, withFields: true) else { return nil }
                entry.groups.append(group)
            case fieldNamesKind:
                position += 1
                guard let entity = readEntity(bytes, at: &position), let count = readLength(bytes, at: &position)
                else { return nil }
                var names: [String] = []
                for _ in 0..<count {
                    guard let length = readLength(bytes, at: &position),
                        let name = readText(bytes, at: &position, length: length)
                    else { return nil }
                    names.append(name)
                }
                entry.fieldNames[entity] = names
            case tombstonesKind:
                position += 1
                guard let entity = readEntity(bytes, at: &position), let count = readLength(bytes, at: &position)
                else { return nil }
                for _ in 0..<count {
                    guard let row = Varint.read(bytes, at: &position, end: bytes.count),
                        let length = readLength(bytes, at: &position)
                    else { return nil }
                    entry.tombstones.append(
                        Tombstone(entity: entity, row: row, record: Array(bytes[position..<(position + length)]))
                    )
                    position += length
                }
            default: return nil
            }
        }
        return entry
    }

    /// Reads a group of kind 0…3 in the run format, with its field bit set in the current one.
    private static func readGroup(_ bytes: [UInt8], at position: inout Int, withFields: Bool) -> HistoryGroup? {
        guard position < bytes.count, bytes[position] <= 3 else { return nil }
        let kind = bytes[position]
        position += 1
        guard let entity = readEntity(bytes, at: &position) else { return nil }
        var fields: [UInt8] = []
        if withFields {
            guard let length = readLength(bytes, at: &position) else { return nil }
            fields = Array(bytes[position..<(position + length)])
            position += length
        }
        guard let runCount = Varint.read(bytes, at: &position, end: bytes.count),
            runCount <= UInt64(bytes.count - position) / 2
        else { return nil }
        var runs: [HistoryGroup.Run] = []
        var rowCount = 0
        var end: UInt64 = 0
        for _ in 0..<runCount {
            guard let gap = Varint.read(bytes, at: &position, end: bytes.count),
                let extra = Varint.read(bytes, at: &position, end: bytes.count),
                case (let start, false) = end.addingReportingOverflow(gap),
                case (let last, false) = start.addingReportingOverflow(extra), last < UInt64.max,
                // A damaged length must not make a reader of the rows allocate more than the
                // value could name.
                rowCount + Int(clamping: extra) < 64 * bytes.count + 1_000_000
            else { return nil }
            runs.append(HistoryGroup.Run(first: start, count: extra + 1))
            rowCount += Int(extra) + 1
            end = last + 1
        }
        return HistoryGroup(kind: kind, entity: entity, runs: runs, fields: fields)
    }

    /// The first format: entries of kind (1 byte), name length (1 byte), name, row (u64
    /// big-endian), one per row.
    private static func firstFormatHistoryGroups(_ bytes: [UInt8]) -> [HistoryGroup]? {
        var groups: [HistoryGroup] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count, bytes[offset] <= 3 else { return nil }
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length + 8 <= bytes.count,
                let entity = String(validating: bytes[(offset + 2)..<(offset + 2 + length)], as: UTF8.self)
            else { return nil }
            let row = bytes[(offset + 2 + length)..<(offset + 10 + length)].reduce(0) { $0 << 8 | UInt64($1) }
            groups.append(HistoryGroup(kind: bytes[offset], entity: entity, rows: [row]))
            offset += 10 + length
        }
        return groups
    }
}
