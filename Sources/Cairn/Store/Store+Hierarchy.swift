import CairnStorage
import Foundation

// Models that inherit from models keep their rows together: every entity of a hierarchy stores
// its records in the root entity's table, `e/<Root>`, and each inherited relationship,
// uniqueness constraint and index in the table of the entity that declares it. The class of a
// row is in its id: the top 16 bits are the class's number in the hierarchy (0 for the root, a
// number kept in the root's description for each subentity), the low 48 a counter of that
// class. A row id alone then names the class whose model to make, so that an edge to a
// superclass can hold a subclass's row, and a fetch of a superclass reads its subclasses' rows
// with the same scan. Docs/Design.md, "Model inheritance".

extension Store {
    /// The bits of a row id below the class number.
    static let classShift: UInt64 = 48

    /// The entities of one hierarchy, by class number: what a row id of the hierarchy names.
    final class Hierarchy {
        /// The root entity's name.
        let root: String
        /// Each class's tables, by class number; `nil` for a number the description keeps for a
        /// class the schema no longer has. Unowned: the store holds the tables, which hold the
        /// hierarchy.
        fileprivate(set) var members: [Member?] = []

        struct Member {
            unowned(unsafe) let tables: EntityTables
        }

        init(root: String) { self.root = root }
    }
}

extension Store.EntityTables {
    /// The class number of a row id.
    @inline(__always)
    static func classNumber(ofRow row: UInt64) -> Int { Int(truncatingIfNeeded: row >> Store.classShift) }

    /// The tables of the class whose row `row` is: these for an entity outside a hierarchy, the
    /// member the row id names for one inside; `nil` for a row id naming no class of the schema
    /// (a damaged edge, a class the schema dropped).
    @inline(__always)
    func tables(forRow row: UInt64) -> Store.EntityTables? {
        guard let hierarchy = lineage.hierarchy else { return self }
        let number = Self.classNumber(ofRow: row)
        guard number == lineage.classNumber else {
            return number < hierarchy.members.count ? hierarchy.members[number]?.tables : nil
        }
        return self
    }

    /// ``tables(forRow:)``, or these tables for a row id that names no class of the schema (read
    /// as a model of this entity).
    @inline(__always)
    func concrete(forRow row: UInt64) -> Store.EntityTables { tables(forRow: row) ?? self }

    /// Whether a fetch of this entity includes row `row` of its table: a row of this class or
    /// of a class that inherits from it.
    @inline(__always)
    func includes(row: UInt64) -> Bool {
        guard lineage.hierarchy != nil else { return true }
        return lineage.descendantClasses.contains(Self.classNumber(ofRow: row))
    }

    /// Whether the entity's table holds rows of other classes than its own and its subclasses'
    /// (it is a subentity), so a scan of it filters by class.
    var sharesRecordsWithOtherClasses: Bool { lineage.hierarchy != nil && lineage.classNumber != 0 }

    /// The key ranges of the records table that hold this entity's rows (its class's and its
    /// subclasses'), after row `after` when given: the whole table for an entity outside a
    /// hierarchy or at its root (whose rows are every row of the table), the spans of its classes
    /// for a subentity, so that a scan of a subclass reads its own rows, not its hierarchy's.
    func rowRanges(after: UInt64?) -> [KeyRange] {
        guard sharesRecordsWithOtherClasses else {
            return [after.map { KeyRange(from: .exclusive(EntryLayout.rowKey($0))) } ?? .all]
        }
        return lineage.rowSpans.compactMap { span in
            if let after, after >= span.upperBound { return nil }
            let first = after.map { Swift.max($0 + 1, span.lowerBound) } ?? span.lowerBound
            return KeyRange(
                from: .inclusive(EntryLayout.rowKey(first)), to: .inclusive(EntryLayout.rowKey(span.upperBound)))
        }
    }

    /// How many rows this entity has (its class's and its subclasses'), counted in `txn`: LMDB's
    /// count of the table outside a hierarchy or at its root, a walk of the ranges for a subentity.
    func rowCount(in txn: borrowing ReadTransaction) throws -> Int {
        guard sharesRecordsWithOtherClasses else { return try txn.count(of: layout.records) }
        var count = 0
        for range in rowRanges(after: nil) {
            try txn.scan(layout.records, range) { _, _ in
                count += 1
                return true
            }
        }
        return count
    }

    /// The first row id of this class.
    var firstRow: UInt64 { UInt64(lineage.classNumber) << Store.classShift }

    /// The tables of this entity and of every entity that inherits from it, by class number.
    var descendants: [Store.EntityTables] {
        guard let hierarchy = lineage.hierarchy else { return [self] }
        return lineage.descendantClasses.sorted().compactMap {
            $0 < hierarchy.members.count ? hierarchy.members[$0]?.tables : nil
        }
    }

    /// The name of the root of the entity's hierarchy, or `nil` outside one.
    var rootName: String? { entity.hierarchyRoot?.name }
}

extension Store {
    /// Links the tables of each hierarchy: its members by class number, and each member's classes.
    static func linkHierarchies(_ tables: [String: EntityTables], classNumbers: [String: Int]) {
        var hierarchies: [String: Hierarchy] = [:]
        for member in tables.values {
            guard let root = member.rootName else { continue }
            let hierarchy = hierarchies[root] ?? Hierarchy(root: root)
            hierarchies[root] = hierarchy
            let number = classNumbers[member.entity.name] ?? 0
            if hierarchy.members.count <= number {
                hierarchy.members += Array(repeating: nil, count: number + 1 - hierarchy.members.count)
            }
            hierarchy.members[number] = Hierarchy.Member(tables: member)
            member.lineage.hierarchy = hierarchy
            member.lineage.classNumber = number
        }
        for member in tables.values where member.lineage.hierarchy != nil {
            var classes: Set<Int> = []
            var pending = [member.entity]
            while let entity = pending.popLast() {
                classes.insert(classNumbers[entity.name] ?? 0)
                pending += entity.subentities
            }
            member.lineage.descendantClasses = classes
            member.lineage.rowSpans = rowSpans(of: classes)
        }
    }

    /// The row ids of `classes`, consecutive class numbers in one span.
    static func rowSpans(of classes: Set<Int>) -> [ClosedRange<UInt64>] {
        var spans: [ClosedRange<UInt64>] = []
        for number in classes.sorted() {
            let first = UInt64(number) << classShift
            let last = first | (1 << classShift - 1)
            if let previous = spans.last, previous.upperBound &+ 1 == first {
                spans[spans.count - 1] = previous.lowerBound...last
            } else {
                spans.append(first...last)
            }
        }
        return spans
    }
}
