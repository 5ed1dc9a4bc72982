#if canImport(SwiftUI)
import SwiftUI

// `@Query`'s initialisers, as SwiftData declares them: each way of saying what to fetch, with an
// `animation:` or an optional `transaction:` (the form without either), for a `[Element]`
// property and, with `sectionBy:`, for a sectioned one. Cairn's results change without animation:
// both are accepted for the signature.

extension Query where Result == [Element] {
    /// A query of `descriptor`'s models.
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), animation: .default)
    /// private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init(
        _ descriptor: FetchDescriptor<Element>,
        animation: Animation
    ) {
        self.init(descriptor: descriptor, section: nil)
    }

    /// A query of `descriptor`'s models.
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)])) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    public init(
        _ descriptor: FetchDescriptor<Element>,
        transaction: Transaction? = nil
    ) {
        self.init(descriptor: descriptor, section: nil)
    }

    /// A query of the models `filter` accepts, in the order `sort` gives.
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], animation: .default) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [],
        animation: Animation
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: nil)
    }

    /// A query of the models `filter` accepts, in the order `sort` gives.
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)]) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [],
        transaction: Transaction? = nil
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: nil)
    }

    /// A query of the models `filter` accepts, ordered by one property.
    ///
    /// ```swift
    /// @Query(sort: \.title, order: .reverse, animation: .default) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by.
    ///   - order: The direction.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        animation: Animation
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: nil)
    }

    /// A query of the models `filter` accepts, ordered by one property.
    ///
    /// ```swift
    /// @Query(sort: \.title, order: .reverse) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by.
    ///   - order: The direction.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        transaction: Transaction? = nil
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: nil)
    }

    /// A query of the models `filter` accepts, ordered by one optional property (`nil` first).
    ///
    /// ```swift
    /// @Query(sort: \.published, animation: .default) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The optional property to order by.
    ///   - order: The direction.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value?>, order: SortOrder = .forward,
        animation: Animation
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: nil)
    }

    /// A query of the models `filter` accepts, ordered by one optional property (`nil` first).
    ///
    /// ```swift
    /// @Query(sort: \.published) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The optional property to order by.
    ///   - order: The direction.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value?>, order: SortOrder = .forward,
        transaction: Transaction? = nil
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: nil)
    }
}

extension Query {
    /// A query of `descriptor`'s models, in sections by a `String` property.
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), animation: .default, sectionBy: \.genre)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        _ descriptor: FetchDescriptor<Element>,
        animation: Animation, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(descriptor: descriptor, section: .init(sectionKeyPath))
    }

    /// A query of `descriptor`'s models, in sections by a `String` property.
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), sectionBy: \.genre)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        _ descriptor: FetchDescriptor<Element>,
        transaction: Transaction? = nil, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(descriptor: descriptor, section: .init(sectionKeyPath))
    }

    /// A query of `descriptor`'s models, in sections by a `String?` property (`nil` in the section
    /// titled `""`).
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), animation: .default, sectionBy: \.series)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        _ descriptor: FetchDescriptor<Element>,
        animation: Animation, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(descriptor: descriptor, section: .init(sectionKeyPath))
    }

    /// A query of `descriptor`'s models, in sections by a `String?` property (`nil` in the section
    /// titled `""`).
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), sectionBy: \.series)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        _ descriptor: FetchDescriptor<Element>,
        transaction: Transaction? = nil, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(descriptor: descriptor, section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, in the order `sort` gives, in sections by a `String`
    /// property.
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], animation: .default, sectionBy: \.genre)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [],
        animation: Animation, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, in the order `sort` gives, in sections by a `String`
    /// property.
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], sectionBy: \.genre) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [],
        transaction: Transaction? = nil, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, in the order `sort` gives, in sections by a `String?`
    /// property (`nil` in the section titled `""`).
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], animation: .default, sectionBy: \.series)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [],
        animation: Animation, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, in the order `sort` gives, in sections by a `String?`
    /// property (`nil` in the section titled `""`).
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], sectionBy: \.series) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [],
        transaction: Transaction? = nil, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, ordered by one property, in sections by a `String`
    /// property.
    ///
    /// ```swift
    /// @Query(sort: \.title, order: .reverse, animation: .default, sectionBy: \.genre)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by.
    ///   - order: The direction.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        animation: Animation, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, ordered by one property, in sections by a `String`
    /// property.
    ///
    /// ```swift
    /// @Query(sort: \.title, order: .reverse, sectionBy: \.genre) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by.
    ///   - order: The direction.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    ///   - sectionKeyPath: The section key, sorted first.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        transaction: Transaction? = nil, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, ordered by one property, in sections by a `String?`
    /// property (`nil` in the section titled `""`).
    ///
    /// ```swift
    /// @Query(sort: \.title, order: .reverse, animation: .default, sectionBy: \.series)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by.
    ///   - order: The direction.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        animation: Animation, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, ordered by one property, in sections by a `String?`
    /// property (`nil` in the section titled `""`).
    ///
    /// ```swift
    /// @Query(sort: \.title, order: .reverse, sectionBy: \.series) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by.
    ///   - order: The direction.
    ///   - transaction: Accepted for SwiftData's signature; the results change without one.
    ///   - sectionKeyPath: The section key, sorted first.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        transaction: Transaction? = nil, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        let sort = SortDescriptor(assumingSendable(keyPath), order: order)
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: [sort]), section: .init(sectionKeyPath))
    }
}
#endif
