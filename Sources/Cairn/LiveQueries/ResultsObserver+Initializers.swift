import Foundation

// The initialisers of `ResultsObserver`, as SwiftData declares them: without sections
// (`SectionTitle == Never`) and with a `String` or `String?` section key (`SectionTitle == String`),
// each from a descriptor or from a predicate and an order, in a given context or in a new
// context of a container. Each fetches at once and throws when that fetch fails.

extension ResultsObserver where SectionTitle == Never {
    /// Observes the results of `fetchDescriptor` in `modelContext`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, Never>(
    ///     fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), modelContext: context)
    /// ```
    /// - Parameters:
    ///   - fetchDescriptor: What to fetch.
    ///   - modelContext: The context the results' models belong to.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, section: nil, context: modelContext, isolation: isolation)
    }

    /// Observes the results of `fetchDescriptor` in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, Never>(
    ///     fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - fetchDescriptor: What to fetch.
    ///   - modelContainer: The container in which a new context is made for the results.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: nil, context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Observes the models `filterBy` accepts, in the order `sortBy` gives, in `modelContext`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, Never>(
    ///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], modelContext: context)
    /// ```
    /// - Parameters:
    ///   - filterBy: The models to include; `nil` for all.
    ///   - sortBy: The order; `nil` for the order rows were first saved in.
    ///   - modelContext: The context the results' models belong to.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: nil, context: modelContext,
            isolation: isolation)
    }

    /// Observes the models `filterBy` accepts, in the order `sortBy` gives, in a new context of `modelContainer`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, Never>(
    ///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - filterBy: The models to include; `nil` for all.
    ///   - sortBy: The order; `nil` for the order rows were first saved in.
    ///   - modelContainer: The container in which a new context is made for the results.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: nil,
            context: ModelContext(modelContainer), isolation: isolation)
    }
}

extension ResultsObserver where SectionTitle == String {
    /// Observes the results of `fetchDescriptor` in `modelContext`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), sectionBy: \.genre, modelContext: context)
    /// ```
    /// - Parameters:
    ///   - fetchDescriptor: What to fetch.
    ///   - sectionBy: The section key: models with the same value are in one section.
    ///   - modelContext: The context the results' models belong to.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: Section(sectionBy), context: modelContext, isolation: isolation)
    }

    /// Observes the results of `fetchDescriptor` in a new context of `modelContainer`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), sectionBy: \.genre, modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - fetchDescriptor: What to fetch.
    ///   - sectionBy: The section key: models with the same value are in one section.
    ///   - modelContainer: The container in which a new context is made for the results.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: Section(sectionBy), context: ModelContext(modelContainer),
            isolation: isolation)
    }

    /// Observes the results of `fetchDescriptor` in `modelContext`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), sectionBy: \.series, modelContext: context)
    /// ```
    /// - Parameters:
    ///   - fetchDescriptor: What to fetch.
    ///   - sectionBy: The section key: models with the same value are in one section; `nil` is the section titled `""`.
    ///   - modelContext: The context the results' models belong to.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: Section(sectionBy), context: modelContext, isolation: isolation)
    }

    /// Observes the results of `fetchDescriptor` in a new context of `modelContainer`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), sectionBy: \.series, modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - fetchDescriptor: What to fetch.
    ///   - sectionBy: The section key: models with the same value are in one section; `nil` is the section titled `""`.
    ///   - modelContainer: The container in which a new context is made for the results.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, section: Section(sectionBy), context: ModelContext(modelContainer),
            isolation: isolation)
    }

    /// Observes the models `filterBy` accepts, in the order `sortBy` gives, in `modelContext`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
    /// ```
    /// - Parameters:
    ///   - filterBy: The models to include; `nil` for all.
    ///   - sortBy: The order; `nil` for the order rows were first saved in.
    ///   - sectionBy: The section key: models with the same value are in one section.
    ///   - modelContext: The context the results' models belong to.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String>, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Section(sectionBy),
            context: modelContext, isolation: isolation)
    }

    /// Observes the models `filterBy` accepts, in the order `sortBy` gives, in a new context of `modelContainer`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - filterBy: The models to include; `nil` for all.
    ///   - sortBy: The order; `nil` for the order rows were first saved in.
    ///   - sectionBy: The section key: models with the same value are in one section.
    ///   - modelContainer: The container in which a new context is made for the results.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Section(sectionBy),
            context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Observes the models `filterBy` accepts, in the order `sortBy` gives, in `modelContext`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], sectionBy: \.series, modelContext: context)
    /// ```
    /// - Parameters:
    ///   - filterBy: The models to include; `nil` for all.
    ///   - sortBy: The order; `nil` for the order rows were first saved in.
    ///   - sectionBy: The section key: models with the same value are in one section; `nil` is the section titled `""`.
    ///   - modelContext: The context the results' models belong to.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String?>, modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Section(sectionBy),
            context: modelContext, isolation: isolation)
    }

    /// Observes the models `filterBy` accepts, in the order `sortBy` gives, in a new context of `modelContainer`, in sections by `sectionBy`.
    ///
    /// ```swift
    /// let observer = try ResultsObserver<Book, String>(
    ///     filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], sectionBy: \.series, modelContainer: container)
    /// ```
    /// - Parameters:
    ///   - filterBy: The models to include; `nil` for all.
    ///   - sortBy: The order; `nil` for the order rows were first saved in.
    ///   - sectionBy: The section key: models with the same value are in one section; `nil` is the section titled `""`.
    ///   - modelContainer: The container in which a new context is made for the results.
    ///   - isolation: The actor the observer updates on when no executor owns the context (the caller's).
    /// - Throws: The error of the first fetch (a `FetchError`, or a `StorageError` when the store cannot be read).
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil,
        sectionBy: KeyPath<Element, String?>, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), section: Section(sectionBy),
            context: ModelContext(modelContainer), isolation: isolation)
    }
}

extension ResultsObserver.Section where SectionTitle == String {
    /// Sections by a `String` property, sorted by it.
    init(_ keyPath: KeyPath<Element, String>) {
        self.init(keyPath: keyPath, sort: SortDescriptor(assumingSendable(keyPath)), title: { $0[keyPath: keyPath] })
    }

    /// Sections by a `String?` property, sorted by it; `nil` is the section titled `""`.
    init(_ keyPath: KeyPath<Element, String?>) {
        self.init(
            keyPath: keyPath, sort: SortDescriptor(assumingSendable(keyPath)), title: { $0[keyPath: keyPath] ?? "" })
    }
}

/// A key path as `SortDescriptor` takes it. Key paths are immutable, so sharing one is safe;
/// SwiftData's signatures take them without `Sendable`, and `Sendable` is a marker with no
/// representation at run time.
func assumingSendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> KeyPath<Root, Value> & Sendable {
    unsafeBitCast(keyPath, to: (KeyPath<Root, Value> & Sendable).self)
}
