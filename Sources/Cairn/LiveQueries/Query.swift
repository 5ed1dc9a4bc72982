#if canImport(SwiftUI)
import SwiftUI

// SwiftUI's side of live queries, where SwiftUI exists: `@Query`, `\.modelContext` and
// `.modelContainer(_:)`, as SwiftData names them, built on ``LiveQuery``.

extension EnvironmentValues {
    /// The context a view's `@Query` properties fetch in and its code inserts into, as
    /// SwiftData's `\.modelContext`; set by ``SwiftUI/View/modelContainer(_:)``.
    ///
    /// ```swift
    /// @Environment(\.modelContext) private var context
    /// ```
    public var modelContext: ModelContext {
        get { self[ModelContextKey.self] }
        set { self[ModelContextKey.self] = newValue }
    }
}

/// Holds the environment's context; reading it where no container was set is a programming error.
private struct ModelContextKey: EnvironmentKey {
    static var defaultValue: ModelContext {
        preconditionFailure(
            "No ModelContext in this view's environment: give a view above it a container with "
                + ".modelContainer(container) (or set \\.modelContext) before a @Query or \\.modelContext is read.")
    }
}

extension View {
    /// Makes `container`'s main context the environment's ``SwiftUI/EnvironmentValues/modelContext``
    /// for this view and the views in it, as SwiftData's modifier does.
    ///
    /// ```swift
    /// WindowGroup { ContentView() }.modelContainer(container)
    /// ```
    /// - Parameter container: The container whose main context the views use.
    /// - Returns: The view with the context in its environment.
    @MainActor public func modelContainer(_ container: ModelContainer) -> some View {
        environment(\.modelContext, container.mainContext)
    }
}

/// The results of a fetch in a SwiftUI view, kept current as the store changes, as SwiftData's
/// `@Query`: the view is drawn again when they change.
///
/// ```swift
/// struct ShelfView: View {
///     @Query(filter: #Predicate<Book> { $0.isOnShelf }, sort: \.title) private var books: [Book]
///     var body: some View { List(books) { Text($0.title) } }
/// }
/// ```
///
/// It fetches in the environment's ``SwiftUI/EnvironmentValues/modelContext`` and keeps the
/// results current with a ``LiveQuery``: saves of any context of the container and of other
/// processes, taken in incrementally.
@MainActor @propertyWrapper
public struct Query<Element: PersistentModel, Result>: DynamicProperty {
    @Environment(\.modelContext) private var environmentContext
    @State private var holder = QueryHolder<Element>()
    private let descriptor: FetchDescriptor<Element>
    /// The section key of a query made with `sectionBy:`.
    private let section: ResultsObserver<Element, String>.Section?

    init(descriptor: FetchDescriptor<Element>, section: ResultsObserver<Element, String>.Section?) {
        var descriptor = descriptor
        if let section { descriptor.sortBy = section.sorted(descriptor.sortBy) }
        self.descriptor = descriptor
        self.section = section
    }

    /// The models the query selects, in its order (in sections for a query made with
    /// `sectionBy:`); empty before the view is first drawn.
    ///
    /// ```swift
    /// Text("\(books.count) books")
    /// ```
    public var wrappedValue: Result {
        if Result.self == SectionedResults<Element, String>.self { return sections as! Result }
        return (holder.query?.results ?? []) as! Result
    }

    /// The results in sections, in order of each title's first appearance; empty for a query
    /// made without `sectionBy:`.
    ///
    /// ```swift
    /// ForEach(_books.sections) { section in Section(section.title) { ForEach(section) { Text($0.title) } } }
    /// ```
    public var sections: SectionedResults<Element, String> {
        guard let section else { return SectionedResults() }
        return SectionedResults(holder.query?.results ?? [], title: section.title)
    }

    /// The context the query fetches in (the environment's).
    ///
    /// ```swift
    /// _books.modelContext.insert(Book(title: "New"))
    /// ```
    public var modelContext: ModelContext { environmentContext }

    /// The error of the last fetch, if it failed (the results are the last good ones).
    ///
    /// ```swift
    /// if let error = _books.fetchError { Text(error.localizedDescription) }
    /// ```
    public var fetchError: (any Error)? { holder.query?.error }

    /// Starts the live query in the environment's context, or again when the context changed.
    ///
    /// ```swift
    /// // SwiftUI calls it before each drawing of the view.
    /// ```
    public mutating func update() {
        let context = environmentContext
        if holder.query == nil || holder.context !== context {
            holder.context = context
            holder.query = LiveQuery(descriptor, in: context)
        }
    }
}

extension Query where Result == [Element] {
    /// A query of `descriptor`'s models.
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)])) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init(_ descriptor: FetchDescriptor<Element>, animation: Animation? = nil) {
        self.init(descriptor: descriptor, section: nil)
    }

    /// A query of the models `filter` accepts, in the order `sort` gives.
    ///
    /// ```swift
    /// @Query(filter: #Predicate<Book> { $0.year > 2000 }, sort: [SortDescriptor(\.title)]) private var books: [Book]
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init(filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [], animation: Animation? = nil) {
        self.init(FetchDescriptor(predicate: filter, sortBy: sort))
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
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        animation: Animation? = nil
    ) {
        self.init(FetchDescriptor(predicate: filter, sortBy: [SortDescriptor(assumingSendable(keyPath), order: order)]))
    }
}

extension Query where Result == SectionedResults<Element, String> {
    /// A query of `descriptor`'s models in sections by a `String` property.
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]), sectionBy: \.genre)
    /// private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch; the section key is sorted first.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key.
    public init(
        _ descriptor: FetchDescriptor<Element>, animation: Animation? = nil,
        sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(descriptor: descriptor, section: .init(sectionKeyPath))
    }

    /// A query of `descriptor`'s models in sections by a `String?` property (`nil` in the section
    /// titled `""`).
    ///
    /// ```swift
    /// @Query(FetchDescriptor<Book>(), sectionBy: \.series) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - descriptor: What to fetch; the section key is sorted first.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key.
    public init(
        _ descriptor: FetchDescriptor<Element>, animation: Animation? = nil,
        sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(descriptor: descriptor, section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, in the order `sort` gives, in sections by a
    /// `String` property.
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], sectionBy: \.genre) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order within each section.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [], animation: Animation? = nil,
        sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, in the order `sort` gives, in sections by a
    /// `String?` property (`nil` in the section titled `""`).
    ///
    /// ```swift
    /// @Query(sort: [SortDescriptor(\.title)], sectionBy: \.series) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - sort: The order within each section.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init(
        filter: Predicate<Element>? = nil, sort: [SortDescriptor<Element>] = [], animation: Animation? = nil,
        sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(descriptor: FetchDescriptor(predicate: filter, sortBy: sort), section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, ordered by one property, in sections by a
    /// `String` property.
    ///
    /// ```swift
    /// @Query(sort: \.title, sectionBy: \.genre) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by within each section.
    ///   - order: The direction.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        animation: Animation? = nil, sectionBy sectionKeyPath: KeyPath<Element, String>
    ) {
        self.init(
            descriptor: FetchDescriptor(
                predicate: filter, sortBy: [SortDescriptor(assumingSendable(keyPath), order: order)]),
            section: .init(sectionKeyPath))
    }

    /// A query of the models `filter` accepts, ordered by one property, in sections by a
    /// `String?` property (`nil` in the section titled `""`).
    ///
    /// ```swift
    /// @Query(sort: \.title, sectionBy: \.series) private var books: SectionedResults<Book, String>
    /// ```
    /// - Parameters:
    ///   - filter: The models to include; `nil` for all.
    ///   - keyPath: The property to order by within each section.
    ///   - order: The direction.
    ///   - animation: Accepted for SwiftData's signature; the results change without animation.
    ///   - sectionKeyPath: The section key, sorted first.
    public init<Value: Comparable>(
        filter: Predicate<Element>? = nil, sort keyPath: KeyPath<Element, Value>, order: SortOrder = .forward,
        animation: Animation? = nil, sectionBy sectionKeyPath: KeyPath<Element, String?>
    ) {
        self.init(
            descriptor: FetchDescriptor(
                predicate: filter, sortBy: [SortDescriptor(assumingSendable(keyPath), order: order)]),
            section: .init(sectionKeyPath))
    }
}

/// The live query of one `@Query`, kept by SwiftUI across drawings of its view.
@MainActor @Observable
final class QueryHolder<Element: PersistentModel> {
    var query: LiveQuery<Element>?
    @ObservationIgnored weak var context: ModelContext?
}
#endif
