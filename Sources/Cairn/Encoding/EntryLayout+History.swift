import Foundation

extension EntryLayout {
    /// One group of a history value: the rows of one entity that one commit changed one way, as
    /// runs of consecutive row ids.
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

        /// A group of `runs`, which must ascend apart.
        package init(kind: UInt8, entity: String, runs: [Run]) {
            self.kind = kind
            self.entity = entity
            self.runs = runs
        }

        /// A group of `rows`, ascending, each once.
        ///
        /// ```swift
        /// let group = EntryLayout.HistoryGroup(kind: 0, entity: "Book", rows: [1, 2, 3, 7])   // two runs
        /// ```
        package init(kind: UInt8, entity: String, rows: [UInt64]) {
            var runs: [Run] = []
            for row in rows {
                if let last = runs.last, last.first &+ last.count == row {
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append(Run(first: row, count: 1))
                }
            }
            self.init(kind: kind, entity: entity, runs: runs)
        }

        /// Every row, ascending.
        package var rows: [UInt64] { runs.flatMap { $0.first..<($0.first &+ $0.count) } }
    }

    /// The first byte of a history value in the run format; a value in the first format starts
    /// with a kind (0…3) instead.
    static let historyRunsMarker: UInt8 = 0xC1

    /// A commit's history value (`h` table): the marker `0xC1`, then per group its kind (1 byte),
    /// the entity name's length (1 byte, at most 255) and UTF-8 bytes, the number of runs
    /// (varint), and each run of consecutive rows as the gap from the previous run's end (varint;
    /// the first run's from 0) and its length minus 1 (varint). A million new rows of one entity
    /// take a few bytes.
    ///
    /// ```swift
    /// let value = EntryLayout.historyValue([HistoryGroup(kind: 0, entity: "Book", rows: [1, 2, 3])])
    /// ```
    package static func historyValue(_ groups: [HistoryGroup]) -> [UInt8] {
        var bytes: [UInt8] = [historyRunsMarker]
        for group in groups {
            let name = Array(group.entity.utf8.prefix(255))
            bytes.append(group.kind)
            bytes.append(UInt8(name.count))
            bytes += name
            Varint.append(UInt64(group.runs.count), to: &bytes)
            var end: UInt64 = 0
            for run in group.runs {
                Varint.append(run.first &- end, to: &bytes)
                Varint.append(run.count - 1, to: &bytes)
                end = run.first &+ run.count
            }
        }
        return bytes
    }

    /// The groups of a stored history value, in either format; `nil` when it does not parse
    /// (the reader then treats every model as stale, which is correct, only slower).
    ///
    /// ```swift
    /// let groups = EntryLayout.historyGroups(value)
    /// ```
    package static func historyGroups(_ value: UnsafeRawBufferPointer) -> [HistoryGroup]? {
        let bytes = Array(value)
        guard let first = bytes.first else { return [] }
        guard first == historyRunsMarker else { return firstFormatHistoryGroups(bytes) }
        var groups: [HistoryGroup] = []
        var position = 1
        while position < bytes.count {
            guard position + 2 <= bytes.count, bytes[position] <= 3 else { return nil }
            let kind = bytes[position]
            let length = Int(bytes[position + 1])
            position += 2
            guard position + length <= bytes.count,
                let entity = String(validating: bytes[position..<(position + length)], as: UTF8.self)
            else { return nil }
            position += length
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
            groups.append(HistoryGroup(kind: kind, entity: entity, runs: runs))
        }
        return groups
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
