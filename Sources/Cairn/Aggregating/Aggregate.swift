import Foundation

/// One value computed over the models a descriptor matches, or over each group of them: a count,
/// a sum, a minimum, a maximum or an average of an attribute, returned as a typed value without
/// making a model per row (see ``ModelContext/aggregate(_:computing:)``).
///
/// As in SQL, a sum, minimum, maximum or average leaves out the models whose attribute is `nil`;
/// ``count`` counts models. A minimum, maximum or average over no values is `nil`; a sum over none
/// is zero.
///
/// ```swift
/// let (books, pages, newest) = try context.aggregate(
///     FetchDescriptor<Book>(predicate: #Predicate { $0.year >= 1900 }),
///     computing: .count, .sum(\.pages), .maximum(\.year))
/// ```
// Sendable, as `FetchDescriptor` is, so an aggregate can be a `static let` and cross actors:
// unchecked because its key path (`AnyKeyPath`, not marked Sendable) is an immutable object once
// made, and its column maker only makes new columns, capturing no state.
public struct Aggregate<Model: PersistentModel, Value>: @unchecked Sendable {
    /// What it computes.
    let function: AggregateFunction
    /// The value it reads of each model; `nil` for a count.
    let keyPath: AnyKeyPath?
    /// Makes the column that accumulates it, one value per group, given what an absent field
    /// of the attribute holds (a row stored before the attribute existed), if anything.
    let makeColumn: (_ absent: Any?) -> AggregateColumn

    init(_ function: AggregateFunction, _ keyPath: AnyKeyPath?, makeColumn: @escaping (Any?) -> AggregateColumn) {
        (self.function, self.keyPath, self.makeColumn) = (function, keyPath, makeColumn)
    }
}

/// What an ``Aggregate`` computes.
enum AggregateFunction: Sendable {
    case count, sum, minimum, maximum, average
}

extension Aggregate where Value == Int {
    /// The number of models.
    ///
    /// ```swift
    /// let count = try context.aggregate(FetchDescriptor<Book>(), computing: .count)
    /// ```
    public static var count: Self { Self(.count, nil) { _ in CountColumn() } }
}

extension Aggregate where Value: BinaryInteger {
    /// The sum of an integer attribute, in its own type.
    ///
    /// ```swift
    /// let pages = try context.aggregate(FetchDescriptor<Book>(), computing: .sum(\.pages))
    /// ```
    /// A sum that does not fit in `Value` throws ``FetchError/Code/aggregateOverflow``.
    public static func sum(_ keyPath: KeyPath<Model, Value>) -> Self {
        Self(.sum, keyPath) { SumColumn(NumberReading.integer(Value.self), absent: $0) }
    }

    /// The sum of an optional integer attribute's values, leaving out `nil`.
    ///
    /// ```swift
    /// let copies = try context.aggregate(FetchDescriptor<Book>(), computing: .sum(\.copiesSold))
    /// ```
    public static func sum(_ keyPath: KeyPath<Model, Value?>) -> Self {
        Self(.sum, keyPath) { SumColumn(NumberReading.integer(Value.self), absent: $0) }
    }
}

extension Aggregate where Value: BinaryFloatingPoint {
    /// The sum of a floating-point attribute, added up in `Double` in the rows' order.
    ///
    /// ```swift
    /// let total = try context.aggregate(FetchDescriptor<Order>(), computing: .sum(\.amount))
    /// ```
    public static func sum(_ keyPath: KeyPath<Model, Value>) -> Self {
        Self(.sum, keyPath) { SumColumn(NumberReading.floating(Value.self), absent: $0) }
    }

    /// The sum of an optional floating-point attribute's values, leaving out `nil`.
    ///
    /// ```swift
    /// let total = try context.aggregate(FetchDescriptor<Order>(), computing: .sum(\.discount))
    /// ```
    public static func sum(_ keyPath: KeyPath<Model, Value?>) -> Self {
        Self(.sum, keyPath) { SumColumn(NumberReading.floating(Value.self), absent: $0) }
    }
}

extension Aggregate where Value == Decimal {
    /// The sum of a `Decimal` attribute.
    ///
    /// ```swift
    /// let total = try context.aggregate(FetchDescriptor<Invoice>(), computing: .sum(\.total))
    /// ```
    public static func sum(_ keyPath: KeyPath<Model, Decimal>) -> Self {
        Self(.sum, keyPath) { SumColumn(NumberReading.decimal, absent: $0) }
    }

    /// The sum of an optional `Decimal` attribute's values, leaving out `nil`.
    ///
    /// ```swift
    /// let total = try context.aggregate(FetchDescriptor<Invoice>(), computing: .sum(\.tax))
    /// ```
    public static func sum(_ keyPath: KeyPath<Model, Decimal?>) -> Self {
        Self(.sum, keyPath) { SumColumn(NumberReading.decimal, absent: $0) }
    }
}

extension Aggregate {
    /// The least value of an attribute; `nil` when there is none.
    ///
    /// ```swift
    /// let oldest = try context.aggregate(FetchDescriptor<Book>(), computing: .minimum(\.year))
    /// ```
    public static func minimum<V: Comparable>(_ keyPath: KeyPath<Model, V>) -> Self where Value == V? {
        Self(.minimum, keyPath) { ExtremeColumn<V>(keepsLeast: true, absent: $0) }
    }

    /// The least non-`nil` value of an optional attribute; `nil` when there is none.
    ///
    /// ```swift
    /// let firstRelease = try context.aggregate(FetchDescriptor<Album>(), computing: .minimum(\.released))
    /// ```
    public static func minimum<V: Comparable>(_ keyPath: KeyPath<Model, V?>) -> Self where Value == V? {
        Self(.minimum, keyPath) { ExtremeColumn<V>(keepsLeast: true, absent: $0) }
    }

    /// The greatest value of an attribute; `nil` when there is none.
    ///
    /// ```swift
    /// let newest = try context.aggregate(FetchDescriptor<Book>(), computing: .maximum(\.year))
    /// ```
    public static func maximum<V: Comparable>(_ keyPath: KeyPath<Model, V>) -> Self where Value == V? {
        Self(.maximum, keyPath) { ExtremeColumn<V>(keepsLeast: false, absent: $0) }
    }

    /// The greatest non-`nil` value of an optional attribute; `nil` when there is none.
    ///
    /// ```swift
    /// let lastRelease = try context.aggregate(FetchDescriptor<Album>(), computing: .maximum(\.released))
    /// ```
    public static func maximum<V: Comparable>(_ keyPath: KeyPath<Model, V?>) -> Self where Value == V? {
        Self(.maximum, keyPath) { ExtremeColumn<V>(keepsLeast: false, absent: $0) }
    }
}

extension Aggregate where Value == Double? {
    /// The mean of an integer attribute; `nil` when there are no values.
    ///
    /// ```swift
    /// let meanPages = try context.aggregate(FetchDescriptor<Book>(), computing: .average(\.pages))
    /// ```
    public static func average<V: BinaryInteger>(_ keyPath: KeyPath<Model, V>) -> Self {
        Self(.average, keyPath) { AverageColumn(SumColumn(NumberReading.integer(V.self), absent: $0)) }
    }

    /// The mean of an optional integer attribute's values, leaving out `nil`.
    ///
    /// ```swift
    /// let meanRating = try context.aggregate(FetchDescriptor<Book>(), computing: .average(\.rating))
    /// ```
    public static func average<V: BinaryInteger>(_ keyPath: KeyPath<Model, V?>) -> Self {
        Self(.average, keyPath) { AverageColumn(SumColumn(NumberReading.integer(V.self), absent: $0)) }
    }

    /// The mean of a floating-point attribute; `nil` when there are no values.
    ///
    /// ```swift
    /// let meanPrice = try context.aggregate(FetchDescriptor<Book>(), computing: .average(\.price))
    /// ```
    public static func average<V: BinaryFloatingPoint>(_ keyPath: KeyPath<Model, V>) -> Self {
        Self(.average, keyPath) { AverageColumn(SumColumn(NumberReading.floating(V.self), absent: $0)) }
    }

    /// The mean of an optional floating-point attribute's values, leaving out `nil`.
    ///
    /// ```swift
    /// let meanScore = try context.aggregate(FetchDescriptor<Player>(), computing: .average(\.score))
    /// ```
    public static func average<V: BinaryFloatingPoint>(_ keyPath: KeyPath<Model, V?>) -> Self {
        Self(.average, keyPath) { AverageColumn(SumColumn(NumberReading.floating(V.self), absent: $0)) }
    }
}

extension Aggregate where Value == Decimal? {
    /// The mean of a `Decimal` attribute; `nil` when there are no values.
    ///
    /// ```swift
    /// let meanTotal = try context.aggregate(FetchDescriptor<Invoice>(), computing: .average(\.total))
    /// ```
    public static func average(_ keyPath: KeyPath<Model, Decimal>) -> Self {
        Self(.average, keyPath) { AverageColumn(SumColumn(NumberReading.decimal, absent: $0)) }
    }

    /// The mean of an optional `Decimal` attribute's values, leaving out `nil`.
    ///
    /// ```swift
    /// let meanTax = try context.aggregate(FetchDescriptor<Invoice>(), computing: .average(\.tax))
    /// ```
    public static func average(_ keyPath: KeyPath<Model, Decimal?>) -> Self {
        Self(.average, keyPath) { AverageColumn(SumColumn(NumberReading.decimal, absent: $0)) }
    }
}

/// The models of one group and what was computed over them (see
/// ``ModelContext/aggregate(_:groupedBy:_:computing:)``): the group's key, one value per key path
/// it was grouped by, and the aggregates' values, in the order they were asked for.
///
/// ```swift
/// for group in try context.aggregate(FetchDescriptor<Book>(), groupedBy: \.genre, computing: .count, .sum(\.pages)) {
///     let (books, pages) = group.values
///     print(group.key, books, pages)
/// }
/// ```
public struct AggregateGroup<Key, Values> {
    /// The value of each key path the models were grouped by (one value, or a tuple of them).
    ///
    /// ```swift
    /// group.key   // "Poetry"
    /// ```
    public let key: Key
    /// The aggregates' values over the group (one value, or a tuple of them).
    ///
    /// ```swift
    /// let (count, pages) = group.values
    /// ```
    public let values: Values
}

extension AggregateGroup: Sendable where Key: Sendable, Values: Sendable {}
