import CairnStorage
import Foundation

/// A sum's running total: in the widest type of the values' kind (`Int64` or `UInt64` with
/// overflow noted, `Double` in the rows' order, `Decimal`), with how many values it has and, for
/// integers, their total as a `Double` for a mean (which does not overflow).
///
/// ```swift
/// var total = NumberTotal()
/// total.add(.signed(40)); total.add(.signed(2))
/// total.signed   // 42
/// ```
struct NumberTotal {
    var signed: Int64 = 0
    var unsigned: UInt64 = 0
    var real: Double = 0
    var decimal: Decimal = 0
    var count = 0
    var overflowed = false

    @inline(__always)
    mutating func add(_ number: StoredNumber) {
        count += 1
        switch number {
        case .signed(let value):
            let (sum, overflow) = signed.addingReportingOverflow(value)
            (signed, real) = (sum, real + Double(value))
            overflowed = overflowed || overflow
        case .unsigned(let value):
            let (sum, overflow) = unsigned.addingReportingOverflow(value)
            (unsigned, real) = (sum, real + Double(value))
            overflowed = overflowed || overflow
        case .real(let value):
            real += value
        case .decimal(let value):
            decimal += value
        }
    }

    /// Adds another total's values.
    mutating func add(_ other: NumberTotal) {
        let (signedSum, signedOverflow) = signed.addingReportingOverflow(other.signed)
        let (unsignedSum, unsignedOverflow) = unsigned.addingReportingOverflow(other.unsigned)
        (signed, unsigned) = (signedSum, unsignedSum)
        real += other.real
        decimal += other.decimal
        count += other.count
        overflowed = overflowed || other.overflowed || signedOverflow || unsignedOverflow
    }
}

/// How a sum or an average reads a stored attribute's fields as numbers: through the value
/// registry (``NativeValue/number(of:)``), an absent field holding the attribute's default.
///
/// ```swift
/// let number = try reading.number(of: fields[0], in: scanner)
/// ```
struct NumberField {
    let native: any NativeValue.Type
    /// What an absent field holds, as a number, or `nil`.
    let absent: StoredNumber?

    func number(of field: FieldPayload?) throws(StorageError) -> StoredNumber? {
        guard let field else { return absent }
        return try native.number(of: field)
    }

    /// A field of the scanner's record (`nil`: absent) as a number.
    func number(of field: RecordReader.Field?, in scanner: RecordScanner) throws(StorageError) -> StoredNumber? {
        guard let field else { return absent }
        if field.wireType == .lengthDelimited { return try native.number(of: scanner.payload(of: field)) }
        return try native.number(ofScalar: field.scalar, wireType: field.wireType)
    }
}

/// The counts and number totals, per group, of a scan of stored rows, kept in the scan's own
/// arrays: a row costs an array add or two and no call into a column. The columns receive them
/// once the scan is over (``hand(to:)``).
///
/// ```swift
/// var tally = GroupTally(numberColumns: [1])
/// tally.count(group, growing: columns)
/// tally.add(number, slot: 0, to: group)
/// tally.hand(to: columns)
/// ```
struct GroupTally {
    /// The columns whose numbers are tallied, by slot (sums and averages of stored numbers).
    let numberColumns: [Int]
    private var counts: [Int] = []
    /// Group-major: group `g`'s slot `s` is at `g * numberColumns.count + s`.
    private var totals: [NumberTotal] = []

    /// A tally of rows, and of numbers for `numberColumns` (columns with a
    /// ``AggregateColumn/numberField``).
    init(numberColumns: [Int]) { self.numberColumns = numberColumns }

    /// Room for `groups` groups.
    private mutating func grow(to groups: Int) {
        guard groups > counts.count else { return }
        totals += repeatElement(NumberTotal(), count: (groups - counts.count) * numberColumns.count)
        counts += repeatElement(0, count: groups - counts.count)
    }

    /// Counts one row of `group`, making room for it first in the tally and in `columns` (the
    /// columns that take values row by row need it too).
    @inline(__always)
    mutating func count(_ group: Int, growing columns: [AggregateColumn]) {
        if group >= counts.count {
            grow(to: group + 1)
            for column in columns { column.grow(to: group + 1) }
        }
        counts[group] &+= 1
    }

    /// Adds a number to `group`'s total in `slot`.
    @inline(__always)
    mutating func add(_ number: StoredNumber, slot: Int, to group: Int) {
        totals[group &* numberColumns.count &+ slot].add(number)
    }

    /// Gives each column its groups' counts and totals.
    func hand(to columns: [AggregateColumn]) {
        for group in counts.indices where counts[group] > 0 {
            for column in columns { column.addModels(counts[group], to: group) }
            for (slot, column) in numberColumns.enumerated() {
                columns[column].add(total: totals[group * numberColumns.count + slot], to: group)
            }
        }
    }
}
