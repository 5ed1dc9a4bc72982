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
/// processes, taken in incrementally, and the context's own unsaved changes.
///
/// `Result` is `[Element]`, or `SectionedResults<Element, String>` for a query made with
/// `sectionBy:` (``QueryResult``). Saying so in the declaration is what lets Swift tell `Element`
/// from the property's type alone, as in `@Query private var books: [Book]`; SwiftData leaves
/// `Result` unconstrained, and code that uses `Query` compiles the same.
@MainActor @propertyWrapper
public struct Query<Element: PersistentModel, Result: QueryResult>: DynamicProperty
where Result.QueryElement == Element {
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

/// What a `@Query` property can be declared as: `[Element]`, or for a query made with
/// `sectionBy:` either `SectionedResults<Element, String>` or `[Element]` with the sections read
/// through the wrapper (`_books.sections`), as SwiftData allows both.
///
/// ```swift
/// @Query(sort: \.title, sectionBy: \.genre) private var books: [Book]
/// // …
/// ForEach(_books.sections) { section in Text(section.title) }
/// ```
public protocol QueryResult {
    /// The model type the results hold.
    associatedtype QueryElement: PersistentModel
}

extension Array: QueryResult where Element: PersistentModel {
    public typealias QueryElement = Element
}

extension SectionedResults: QueryResult where SectionTitle == String {
    public typealias QueryElement = Element
}

/// The live query of one `@Query`, kept by SwiftUI across drawings of its view.
@MainActor @Observable
final class QueryHolder<Element: PersistentModel> {
    var query: LiveQuery<Element>?
    @ObservationIgnored weak var context: ModelContext?
}
#endif
