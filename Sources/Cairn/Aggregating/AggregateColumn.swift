import CairnStorage
import Foundation

/// One aggregate's running values, one per group: values arrive as stored record fields (read
/// without making a model) or as values a key path read of a model, and leave as the aggregate's
/// typed value, boxed. Groups are numbered from 0; ``grow(to:)`` makes room before values of a
/// new group arrive, and ``merge(_:into:)`` adds one group's values into another's (groups whose
/// keys turn out equal).
///
/// ```swift
/// let column = IntegerSumColumn<Int>(absent: nil)
/// column.grow(to: 1)
/// try column.add(field: .varint(84), to: 0)
/// try column.result(0)   // 42 (the zigzag varint of 42), boxed
/// ```
class AggregateColumn {
    /// Whether the column reads a value of each model (every aggregate but a count).
    var readsValues: Bool { true }
    /// Whether the column can read stored fields (its value type is one the store keeps natively).
    var readsFields: Bool { true }

    /// Room for `groups` groups.
    func grow(to groups: Int) {}
    /// Adds a stored field (`nil`: the record lacks it) to `group`.
    func add(field: FieldPayload?, to group: Int) throws(StorageError) {}
    /// Adds the value a key path read of a model (`nil`, or an optional's `nil`: no value).
    func add(value: Any?, to group: Int) {}
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

/// Reads stored fields of the native type `W` (``NativeValue``): `nil` when `W` is not one.
enum FieldValueReader {
    static func reader<W>(for _: W.Type) -> ((FieldPayload) throws(StorageError) -> W)? {
        guard let native = W.self as? any NativeValue.Type else { return nil }
        return reader(native, as: W.self)
    }

    private static func reader<N: NativeValue, W>(
        _: N.Type, as _: W.Type
    ) -> (FieldPayload) throws(StorageError) -> W {
        // N is W (the caller cast W's metatype to it), so the cast reinterprets nothing.
        { field throws(StorageError) in unsafeBitCast(try N(fieldPayload: field), to: W.self) }
    }
}

/// A column over values of type `W`: decodes fields and unwraps models' values into `W`, then
/// hands each to ``accumulate(_:into:)``.
class ValueColumn<W>: AggregateColumn {
    private let read: ((FieldPayload) throws(StorageError) -> W)?
    /// What an absent field holds: the attribute's default value, or `nil` for an optional.
    private let absent: W?

    init(absent: Any?) {
        read = FieldValueReader.reader(for: W.self)
        self.absent = absent as? W
    }

    override var readsFields: Bool { read != nil }

    override func add(field: FieldPayload?, to group: Int) throws(StorageError) {
        guard let field else {
            if let absent { accumulate(absent, into: group) }
            return
        }
        guard let read else { return }
        accumulate(try read(field), into: group)
    }

    override func add(value: Any?, to group: Int) {
        // An optional's `nil` inside the `Any` does not cast to `W`.
        if let value = value as? W { accumulate(value, into: group) }
    }

    /// Adds one value to `group`.
    func accumulate(_ value: W, into group: Int) {}
}

/// ``Aggregate/count``: models per group.
final class CountColumn: AggregateColumn {
    private var counts: [Int] = []

    override var readsValues: Bool { false }
    override func grow(to groups: Int) { if groups > counts.count { counts += repeatElement(0, count: groups - counts.count) } }
    override func addModel(to group: Int) { counts[group] += 1 }
    override func addModels(_ count: Int, to group: Int) { counts[group] += count }
    override func merge(_ group: Int, into target: Int) { counts[target] += counts[group] }
    override func result(_ group: Int) throws(FetchError) -> Any { counts[group] }
}

/// A sum's running totals, and how many values each has (for an average).
protocol SumColumn: AggregateColumn {
    /// How many values `group` added.
    func valueCount(_ group: Int) -> Int
    /// `group`'s total divided by `count`, boxed as `Double?` or `Decimal?`.
    func mean(_ group: Int, count: Int) -> Any
}

/// The sum of integers of type `W`, added up in `Int64` (`UInt64` for an unsigned type) with
/// overflow checked, returned as `W`; for a mean, also in `Double`, which does not overflow.
final class IntegerSumColumn<W: BinaryInteger>: ValueColumn<W>, SumColumn {
    private typealias Total = (value: Int64, unsigned: UInt64, overflowed: Bool, count: Int, real: Double)
    private var totals: [Total] = []

    override func grow(to groups: Int) {
        let empty: Total = (0, 0, false, 0, 0)
        if groups > totals.count { totals += repeatElement(empty, count: groups - totals.count) }
    }

    override func accumulate(_ value: W, into group: Int) {
        add(Int64(exactly: value), UInt64(exactly: value), count: 1, real: Double(value), to: group)
    }

    private func add(_ signed: Int64?, _ unsigned: UInt64?, count: Int, real: Double, to group: Int) {
        var total = totals[group]
        total.count += count
        total.real += real
        if W.isSigned {
            let (sum, overflow) = total.value.addingReportingOverflow(signed ?? 0)
            total.value = sum
            total.overflowed = total.overflowed || overflow || signed == nil
        } else {
            let (sum, overflow) = total.unsigned.addingReportingOverflow(unsigned ?? 0)
            total.unsigned = sum
            total.overflowed = total.overflowed || overflow || unsigned == nil
        }
        totals[group] = total
    }

    override func merge(_ group: Int, into target: Int) {
        let total = totals[group]
        add(total.value, total.unsigned, count: total.count, real: total.real, to: target)
        if total.overflowed { totals[target].overflowed = true }
    }

    override func result(_ group: Int) throws(FetchError) -> Any {
        let total = totals[group]
        let value = total.overflowed ? nil : W.isSigned ? W(exactly: total.value) : W(exactly: total.unsigned)
        guard let value else { throw FetchError.aggregateOverflow(of: W.self, values: total.count) }
        return value
    }

    func valueCount(_ group: Int) -> Int { totals[group].count }

    func mean(_ group: Int, count: Int) -> Any {
        let mean: Double? = count > 0 ? totals[group].real / Double(count) : nil
        return mean as Any
    }
}

/// The sum of floating-point values of type `W`, added up in `Double`, returned as `W`.
final class FloatingSumColumn<W: BinaryFloatingPoint>: ValueColumn<W>, SumColumn {
    private var totals: [(value: Double, count: Int)] = []

    override func grow(to groups: Int) {
        if groups > totals.count { totals += repeatElement((value: 0.0, count: 0), count: groups - totals.count) }
    }

    override func accumulate(_ value: W, into group: Int) {
        totals[group].value += Double(value)
        totals[group].count += 1
    }

    override func merge(_ group: Int, into target: Int) {
        totals[target].value += totals[group].value
        totals[target].count += totals[group].count
    }

    override func result(_ group: Int) throws(FetchError) -> Any { W(totals[group].value) }
    func valueCount(_ group: Int) -> Int { totals[group].count }
    func mean(_ group: Int, count: Int) -> Any {
        let mean: Double? = count > 0 ? totals[group].value / Double(count) : nil
        return mean as Any
    }
}

/// The sum of `Decimal` values.
final class DecimalSumColumn: ValueColumn<Decimal>, SumColumn {
    private var totals: [(value: Decimal, count: Int)] = []

    override func grow(to groups: Int) {
        if groups > totals.count { totals += repeatElement((value: Decimal(0), count: 0), count: groups - totals.count) }
    }

    override func accumulate(_ value: Decimal, into group: Int) {
        totals[group].value += value
        totals[group].count += 1
    }

    override func merge(_ group: Int, into target: Int) {
        totals[target].value += totals[group].value
        totals[target].count += totals[group].count
    }

    override func result(_ group: Int) throws(FetchError) -> Any { totals[group].value }
    func valueCount(_ group: Int) -> Int { totals[group].count }
    func mean(_ group: Int, count: Int) -> Any {
        let mean: Decimal? = count > 0 ? totals[group].value / Decimal(count) : nil
        return mean as Any
    }
}

/// An average: a sum's total over its count of values, `nil` for none.
final class AverageColumn: AggregateColumn {
    private let sum: any SumColumn

    init(_ sum: any SumColumn) { self.sum = sum }

    override var readsFields: Bool { sum.readsFields }
    override func grow(to groups: Int) { sum.grow(to: groups) }
    override func add(field: FieldPayload?, to group: Int) throws(StorageError) { try sum.add(field: field, to: group) }
    override func add(value: Any?, to group: Int) { sum.add(value: value, to: group) }
    override func merge(_ group: Int, into target: Int) { sum.merge(group, into: target) }
    override func result(_ group: Int) throws(FetchError) -> Any { sum.mean(group, count: sum.valueCount(group)) }
}

/// The least or the greatest value of type `W`, `nil` for none.
final class ExtremeColumn<W: Comparable>: ValueColumn<W> {
    private let keepsLeast: Bool
    private var extremes: [W?] = []

    init(keepsLeast: Bool, absent: Any?) {
        self.keepsLeast = keepsLeast
        super.init(absent: absent)
    }

    override func grow(to groups: Int) {
        if groups > extremes.count { extremes += repeatElement(nil, count: groups - extremes.count) }
    }

    override func accumulate(_ value: W, into group: Int) {
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
