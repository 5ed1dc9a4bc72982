import Foundation

/// A fetch that could not be answered: the predicate could not be evaluated on a model (a
/// forced unwrap of `nil`, a failed cast, an expression that refers to something it cannot reach),
/// or an enumeration's block left changes it was not allowed to. The context's changes are kept.
///
/// ```swift
/// do {
///     let books = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.subtitle! == "" }))
/// } catch let error as FetchError where error.code == .predicateFailed {
///     print(error.message)   // names the expression and the model it failed on
/// }
/// ```
public struct FetchError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; keep a `default` in a `switch`.
    ///
    /// ```swift
    /// if error.code == .predicateFailed { … }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code's name.
        ///
        /// ```swift
        /// FetchError.Code.predicateFailed.description   // "predicateFailed"
        /// ```
        public var description: String { name }

        /// Evaluating the predicate on a model threw.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .predicateFailed { … }
        /// ```
        public static let predicateFailed = Code("predicateFailed")
        /// The block given to ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``
        /// left unsaved changes while `allowEscapingMutations` was `false`.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .mutationsEscaped { try context.save() }
        /// ```
        public static let mutationsEscaped = Code("mutationsEscaped")
        /// A property of a model could not be loaded from the store (its record or edges are
        /// damaged, or its identifier names no model of this store). The property read as its
        /// default value, `nil` or empty; ``FetchError/model`` and ``FetchError/property`` say
        /// which, and ``FetchError/cause`` why. See ``ModelContext/pendingLoadErrors``.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .loadFailed { print(error.model!, error.property!) }
        /// ```
        public static let loadFailed = Code("loadFailed")
        /// An argument is out of its range, such as a `batchSize` of zero or less. Nothing was read.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .invalidArgument { print(error.message) }
        /// ```
        public static let invalidArgument = Code("invalidArgument")
        /// The predicate or a sort descriptor reads a `.codable` attribute, whose stored value is
        /// opaque to the store.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .opaqueAttribute { … }
        /// ```
        public static let opaqueAttribute = Code("opaqueAttribute")
        /// A sum does not fit in the type of the attribute it adds up.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .aggregateOverflow { … }
        /// ```
        public static let aggregateOverflow = Code("aggregateOverflow")
        /// A grouping key path's value could not be used as the group's key (it is not of the
        /// key path's type).
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .ungroupable { … }
        /// ```
        public static let ungroupable = Code("ungroupable")
        /// A text query could not be read: a quote or parenthesis left open, an operator with
        /// nothing to combine, or no word to search for. ``FetchError/message`` says where.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .invalidQuery { showHint(error.message) }
        /// ```
        public static let invalidQuery = Code("invalidQuery")
        /// A search names what has no full-text or vector index: an entity without
        /// `@Attribute(.spotlight)` text attributes (or `.vector` ones, for a similarity search),
        /// or a key path that is not one of them; asks an encrypted store for a prefix, which its
        /// hashed terms cannot find; or reads a vector index a read-only store has not rebuilt
        /// for a changed declaration.
        ///
        /// ```swift
        /// catch let error as FetchError where error.code == .notSearchable { … }
        /// ```
        public static let notSearchable = Code("notSearchable")
    }

    /// What kind of failure this is.
    ///
    /// ```swift
    /// error.code   // .predicateFailed
    /// ```
    public var code: Code
    /// What failed, on which model, and how to fix it.
    ///
    /// ```swift
    /// print(error.message)
    /// ```
    public var message: String
    /// The model the predicate failed on, when it has one.
    ///
    /// ```swift
    /// if let id = error.model { print(id) }
    /// ```
    public var model: PersistentIdentifier?
    /// The error the predicate threw, as text; empty when there is none.
    ///
    /// ```swift
    /// print(error.underlying)   // "forceUnwrapFailure(…)"
    /// ```
    public var underlying: String
    /// The property that could not be loaded (``Code/loadFailed``), else `nil`.
    ///
    /// ```swift
    /// if let property = error.property { print("\(error.model!).\(property) read as its default") }
    /// ```
    public var property: String?
    /// The error behind this one, such as the `StorageError` of a damaged record, when there is one.
    ///
    /// ```swift
    /// if let storage = error.cause as? StorageError, storage.code == .damagedRecord { restoreFromBackup() }
    /// ```
    public var cause: (any Error & Sendable)?

    /// Creates a fetch error.
    ///
    /// ```swift
    /// FetchError(code: .predicateFailed, message: "…", model: id, underlying: ErrorText.describing(error))
    /// ```
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What failed and how to fix it.
    ///   - model: The model concerned, if any.
    ///   - underlying: The underlying error as text; empty when there is none.
    ///   - property: The property concerned, if any.
    ///   - cause: The underlying error, if any.
    public init(
        code: Code, message: String, model: PersistentIdentifier?, underlying: String, property: String? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.model = model
        self.underlying = underlying
        self.property = property
        self.cause = cause
    }

    /// The message, with the code.
    ///
    /// ```swift
    /// print(error)   // "FetchError.predicateFailed: …"
    /// ```
    public var description: String { "FetchError.\(code): \(message)" }
}

extension FetchError {
    /// Runs `evaluate`, turning what it throws into a `.predicateFailed` error naming the
    /// expression (the `&&`-joined part of the predicate that threw) and the model.
    @usableFromInline
    static func evaluating<T: PersistentModel>(
        _ part: any PredicateExpression<Bool>, on model: T, _ evaluate: () throws -> Bool
    ) throws -> Bool {
        do {
            return try evaluate()
        } catch {
            var expression = "\(type(of: part))"
            if expression.count > 400 { expression = expression.prefix(400) + "…" }
            throw FetchError(
                code: .predicateFailed,
                message: "Evaluating the predicate of a FetchDescriptor<\(T.self)> on \(model.persistentModelID) threw "
                    + "\(ErrorText.describing(error)). The expression: \(expression). Guard optionals with `!= nil`, `??` or `flatMap` "
                    + "instead of `!`, and refer only to the model's properties and captured values.",
                model: model.persistentModelID, underlying: ErrorText.describing(error))
        }
    }
}

extension FetchError {
    /// The error for a batch size of zero or less given to `operation`.
    static func invalidBatchSize(_ batchSize: Int, of operation: String) -> FetchError {
        FetchError(
            code: .invalidArgument,
            message: "ModelContext.\(operation) was given the batch size \(batchSize); a batch holds at least 1 model. "
                + "Pass a batch size of 1 or more (SwiftData's default is 5,000).",
            model: nil, underlying: "")
    }

    /// A predicate or sort of a fetch of `entity` reads its `.codable` attribute `attribute`.
    static func opaque(_ attribute: String, of entity: String, inSort: Bool) -> FetchError {
        FetchError(
            code: .opaqueAttribute,
            message: "The fetch's \(inSort ? "sort descriptor" : "predicate") reads \(entity).\(attribute), which is "
                + "@Attribute(.codable): its stored value is opaque, so no predicate or sort can use it. Filter or sort "
                + "on other attributes (store what you search by in attributes of their own), or drop .codable so the "
                + "value is stored field by field.",
            model: nil, underlying: "")
    }
}

extension FetchError {
    /// A sum of `values` values of type `type` that does not fit in it.
    static func aggregateOverflow(of type: String, values: Int) -> FetchError {
        FetchError(
            code: .aggregateOverflow,
            message: "The sum of \(values) values of type \(type) does not fit in \(type). Sum a wider attribute "
                + "(Int64 rather than Int32, say), or narrow the descriptor's predicate.",
            model: nil, underlying: "")
    }

    /// A grouping by `keyPaths` met a value that is not of the key path's type.
    static func ungroupableKey(_ keyPaths: [AnyKeyPath]) -> FetchError {
        FetchError(
            code: .ungroupable,
            message: "A value of \(keyPaths.map { "\($0)" }.joined(separator: ", ")) could not be used as a group's key: "
                + "the stored value is not of the key path's type, or a to-one relationship has no destination while "
                + "the key path's type is not optional. Group by an optional key path (`\\.author?.name`).",
            model: nil, underlying: "")
    }
}
