import CairnStorage
import Foundation

/// One aggregate's running values, one per group: values arrive as stored record fields (read
/// without making a model) or as values a key path read of a model, and leave as the aggregate's
/// typed value, boxed. Groups are numbered from 0; ``grow(to:)`` makes room before values of a
/// new group arrive, and ``merge(_:into:)`` adds one group's values into another's (groups whose
/// keys turn out equal).
///
/// ```swift
/// let column = SumColumn(NumberReading.integer(Int.self), absent: nil)
/// column.grow(to: 1)
/// try column.add(field: .varint(84), to: 0)
/// try column.result(0)   // 42 (84 is the zigzag varint of 42), boxed
/// ```
class AggregateColumn {
    /// Whether the column can read stored fields (its value type is one the store keeps natively).
    var readsFields: Bool { true }

    /// Room for `groups` groups.
    func grow(to groups: Int) {}
    /// Adds a stored field (`nil`: the record lacks it) to `group`.
    func add(field: FieldPayload?, to group: Int) throws(StorageError) {}
    /// Adds a field of the scanner's record (`nil`: the record lacks it) to `group`.
    func add(_ field: RecordReader.Field?, of scanner: RecordScanner, to group: Int) throws(StorageError) {
        try add(field: field.map { scanner.payload(of: $0) }, to: group)
    }
    /// Adds the value a key path read of a model (`nil`, or an optional's `nil`: no value).
    func add(value: Any?, to group: Int) {}
    /// How the column reads stored fields as numbers, when it adds them up (a sum or an average
    /// of a natively stored type): a scan tallies them (``GroupTally``) and hands it the totals.
    var numberField: NumberField? { nil }
    /// Adds a total of stored numbers to `group`.
    func add(total: NumberTotal, to group: Int) {}
    /// Counts one model of `group` (a count's only input).
    func addModel(to group: Int) {}
    /// Counts `count` models of `group`.
    func addModels(_ count: Int, to group: Int) {}
    /// Adds `group`'s values into `target`'s.
    func merge(_ group: Int, into target: Int) {}
    /// The aggregate's value for `group`, boxed as the aggregate's `Value`.
    ///
    /// - Throws: ``FetchError`` `.aggregateOverflow` when a sum does not fit its type.
    func result(_ group: Int) throws(FetchError) -> Any { preconditionFailure("AggregateColumn is abstract") }
}

/// ``Aggregate/count``: models per group.
final class CountColumn: AggregateColumn {
    private var counts: [Int] = []

    override func grow(to groups: Int) { if groups > counts.count { counts += repeatElement(0, count: groups - counts.count) } }
    override func addModel(to group: Int) { counts[group] += 1 }
    override func addModels(_ count: Int, to group: Int) { counts[group] += count }
    override func merge(_ group: Int, into target: Int) { counts[target] += counts[group] }
    override func result(_ group: Int) throws(FetchError) -> Any { counts[group] }
}

/// A sum's running totals, one per group (``NumberTotal``).
///
/// Nothing in it is generic: a stored field becomes a ``StoredNumber`` through the value
/// registry (``NativeValue/number(of:)``, compiled for each type), so adding a row costs no
/// generic call; the sum's type comes back only in ``result(_:)``, through ``Reading/total``.
final class SumColumn: AggregateColumn {
    /// How the column reads and returns the values of one type, made where the type is known
    /// (``NumberReading``).
    struct Reading {
        enum Kind { case signed, unsigned, real, decimal }
        let kind: Kind
        /// The type, when it is stored natively: its fields are read as numbers by the registry.
        let native: (any NativeValue.Type)?
        /// A model's value as a number (`nil`: none, such as an optional's `nil`).
        let value: (Any?) -> StoredNumber?
        /// A total as the sum's type, boxed; `nil` when it does not fit.
        let total: (StoredNumber) -> Any?
        /// The type's name, for an overflow's message.
        let typeName: String
    }

    private let reading: Reading
    private let fields: NumberField?
    private var totals: [NumberTotal] = []

    init(_ reading: Reading, absent: Any?) {
        self.reading = reading
        fields = reading.native.map { NumberField(native: $0, absent: absent.flatMap { reading.value($0) }) }
    }

    override var readsFields: Bool { fields != nil }

    override func grow(to groups: Int) {
        if groups > totals.count { totals += repeatElement(NumberTotal(), count: groups - totals.count) }
    }

    override func add(field: FieldPayload?, to group: Int) throws(StorageError) {
        if let number = try fields?.number(of: field) { totals[group].add(number) }
    }

    override func add(value: Any?, to group: Int) {
        if let number = reading.value(value) { totals[group].add(number) }
    }

    override var numberField: NumberField? { fields }
    override func add(total: NumberTotal, to group: Int) { totals[group].add(total) }

    override func merge(_ group: Int, into target: Int) { totals[target].add(totals[group]) }

    override func result(_ group: Int) throws(FetchError) -> Any {
        let total = totals[group]
        let number: StoredNumber =
            switch reading.kind {
            case .signed: .signed(total.signed)
            case .unsigned: .unsigned(total.unsigned)
            case .real: .real(total.real)
            case .decimal: .decimal(total.decimal)
            }
        guard !total.overflowed, let value = reading.total(number) else {
            throw FetchError.aggregateOverflow(of: reading.typeName, values: total.count)
        }
        return value
    }

    /// `group`'s mean, boxed as `Double?` (`Decimal?` for decimals); `nil` over no values.
    func mean(_ group: Int) -> Any {
        let total = totals[group]
        guard total.count > 0 else { return reading.kind == .decimal ? (nil as Decimal?) as Any : (nil as Double?) as Any }
        if reading.kind == .decimal { return (total.decimal / Decimal(total.count)) as Decimal? as Any }
        return (total.real / Double(total.count)) as Double? as Any
    }
}

/// The readings of numbers of each kind of type, for ``SumColumn``.
enum NumberReading {
    static func integer<W: BinaryInteger>(_: W.Type) -> SumColumn.Reading {
        SumColumn.Reading(
            kind: W.isSigned ? .signed : .unsigned, native: W.self as? any NativeValue.Type,
            value: { value in
                guard let value = value as? W else { return nil }
                if W.isSigned { return Int64(exactly: value).map { .signed($0) } ?? .real(Double(value)) }
                return UInt64(exactly: value).map { .unsigned($0) } ?? .real(Double(value))
            },
            total: { total in
                switch total {
                case .signed(let value): W(exactly: value)
                case .unsigned(let value): W(exactly: value)
                case .real, .decimal: nil
                }
            }, typeName: "\(W.self)")
    }

    static func floating<W: BinaryFloatingPoint>(_: W.Type) -> SumColumn.Reading {
        SumColumn.Reading(
            kind: .real, native: W.self as? any NativeValue.Type,
            value: { value in (value as? W).map { .real(Double($0)) } },
            total: { total in
                if case .real(let value) = total { return W(value) }
                return nil
            }, typeName: "\(W.self)")
    }

    static var decimal: SumColumn.Reading {
        SumColumn.Reading(
            kind: .decimal, native: Decimal.self,
            value: { value in (value as? Decimal).map { .decimal($0) } },
            total: { total in
                if case .decimal(let value) = total { return value }
                return nil
            }, typeName: "Decimal")
    }
}

/// An average: a sum's total over its count of values, `nil` for none.
final class AverageColumn: AggregateColumn {
    private let sum: SumColumn

    init(_ sum: SumColumn) { self.sum = sum }

    override var readsFields: Bool { sum.readsFields }
    override func grow(to groups: Int) { sum.grow(to: groups) }
    override func add(field: FieldPayload?, to group: Int) throws(StorageError) { try sum.add(field: field, to: group) }
    override func add(value: Any?, to group: Int) { sum.add(value: value, to: group) }
    override var numberField: NumberField? { sum.numberField }
    override func add(total: NumberTotal, to group: Int) { sum.add(total: total, to: group) }
    override func merge(_ group: Int, into target: Int) { sum.merge(group, into: target) }
    override func result(_ group: Int) throws(FetchError) -> Any { sum.mean(group) }
}

/// The least or the greatest value of type `W`, `nil` for none: stored fields decoded into `W`
/// when it is a native type, models' values unwrapped into it.
final class ExtremeColumn<W: Comparable>: AggregateColumn {
    private let keepsLeast: Bool
    private let read: ((FieldPayload) throws(StorageError) -> W)?
    /// What an absent field holds: the attribute's default value, or `nil` for an optional.
    private let absent: W?
    private var extremes: [W?] = []

    init(keepsLeast: Bool, absent: Any?) {
        self.keepsLeast = keepsLeast
        read = Self.reader()
        self.absent = absent as? W
    }

    /// Decodes a stored field into `W`; `nil` when `W` is not a native type.
    private static func reader() -> ((FieldPayload) throws(StorageError) -> W)? {
        guard let native = W.self as? any NativeValue.Type else { return nil }
        return reader(native)
    }

    private static func reader<N: NativeValue>(_: N.Type) -> (FieldPayload) throws(StorageError) -> W {
        // N is W (W's metatype was cast to it), so the cast reinterprets nothing.
        { field throws(StorageError) in unsafeBitCast(try N(fieldPayload: field), to: W.self) }
    }

    override var readsFields: Bool { read != nil }

    override func grow(to groups: Int) {
        if groups > extremes.count { extremes += repeatElement(nil, count: groups - extremes.count) }
    }

    override func add(field: FieldPayload?, to group: Int) throws(StorageError) {
        guard let field else {
            if let absent { accumulate(absent, into: group) }
            return
        }
        if let read { accumulate(try read(field), into: group) }
    }

    override func add(value: Any?, to group: Int) {
        // An optional's `nil` inside the `Any` does not cast to `W`.
        if let value = value as? W { accumulate(value, into: group) }
    }

    private func accumulate(_ value: W, into group: Int) {
        guard let current = extremes[group] else {
            extremes[group] = value
            return
        }
        if keepsLeast ? value < current : current < value { extremes[group] = value }
    }

    override func merge(_ group: Int, into target: Int) {
        if let value = extremes[group] { accumulate(value, into: target) }
    }

    override func result(_ group: Int) throws(FetchError) -> Any { extremes[group] as W? as Any }
}
