import Foundation

#if !canImport(Darwin)
/// The localized string orders of `SortDescriptor(_:comparator:order:)` on platforms whose
/// Foundation has only the lexical one, so that SwiftData's
/// `SortDescriptor(\.name, comparator: .localizedStandard)` compiles and sorts as it does on
/// Apple platforms. There Foundation's `String.StandardComparator` is used instead.
///
/// ```swift
/// let byName = FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])
/// // "Soup 2" before "Soup 10", "éclair" beside "eclair"
/// ```
public struct LocalizedStringComparator: Hashable, Sendable {
    /// How two strings are ordered.
    enum Kind: Hashable, Sendable {
        case localizedStandard
        case localized
    }

    let kind: Kind

    /// Strings as Finder orders them: localized, case-insensitive, numbers by value
    /// (`localizedStandardCompare`).
    ///
    /// ```swift
    /// SortDescriptor(\Recipe.name, comparator: .localizedStandard)
    /// ```
    public static let localizedStandard = LocalizedStringComparator(kind: .localizedStandard)

    /// Strings in the current locale's order (`localizedCompare`).
    ///
    /// ```swift
    /// SortDescriptor(\Recipe.name, comparator: .localized)
    /// ```
    public static let localized = LocalizedStringComparator(kind: .localized)
}

extension SortDescriptor where Compared: PersistentModel {
    /// Sorts by a string property in a localized order, as SwiftData's
    /// `SortDescriptor(_:comparator:order:)` does on Apple platforms.
    ///
    /// ```swift
    /// SortDescriptor(\Recipe.name, comparator: .localizedStandard, order: .reverse)
    /// ```
    /// The descriptor sorts by the string as the comparator orders it; no index serves the
    /// order (an index holds the string's bytes in byte order).
    public init(
        _ keyPath: KeyPath<Compared, String> & Sendable, comparator: LocalizedStringComparator,
        order: SortOrder = .forward
    ) {
        self.init(\Compared.[_localizedOrderOf: keyPath, comparator], order: order)
    }

    /// Sorts by an optional string property in a localized order (`nil` first, as with
    /// Foundation's comparators).
    ///
    /// ```swift
    /// SortDescriptor(\Recipe.subtitle, comparator: .localizedStandard)
    /// ```
    public init(
        _ keyPath: KeyPath<Compared, String?> & Sendable, comparator: LocalizedStringComparator,
        order: SortOrder = .forward
    ) {
        self.init(\Compared.[_localizedOrderOf: keyPath, comparator], order: order)
    }
}

/// A string compared as its comparator orders it: what a localized `SortDescriptor` sorts by.
struct LocalizedOrderKey: Comparable, Sendable {
    let text: String
    let comparator: LocalizedStringComparator

    private func compare(_ other: Self) -> ComparisonResult {
        switch comparator.kind {
        case .localizedStandard: text.localizedStandardCompare(other.text)
        case .localized: text.localizedCompare(other.text)
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.compare(rhs) == .orderedAscending }
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.compare(rhs) == .orderedSame }
}

extension PersistentModel {
    /// The string at `keyPath` as `comparator` orders it: the key a localized
    /// `SortDescriptor` sorts by.
    subscript(
        _localizedOrderOf keyPath: KeyPath<Self, String> & Sendable, comparator: LocalizedStringComparator
    ) -> LocalizedOrderKey {
        LocalizedOrderKey(text: self[keyPath: keyPath], comparator: comparator)
    }

    /// The optional string at `keyPath`, if any, as `comparator` orders it.
    subscript(
        _localizedOrderOf keyPath: KeyPath<Self, String?> & Sendable, comparator: LocalizedStringComparator
    ) -> LocalizedOrderKey? {
        self[keyPath: keyPath].map { LocalizedOrderKey(text: $0, comparator: comparator) }
    }
}
#endif
