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

    /// Creates a fetch error.
    ///
    /// ```swift
    /// FetchError(code: .predicateFailed, message: "…", model: id, underlying: "\(error)")
    /// ```
    public init(code: Code, message: String, model: PersistentIdentifier?, underlying: String) {
        self.code = code
        self.message = message
        self.model = model
        self.underlying = underlying
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
    /// expression and the model.
    static func evaluating<T: PersistentModel>(
        _ predicate: Predicate<T>, on model: T, _ evaluate: () throws -> Bool
    ) throws -> Bool {
        do {
            return try evaluate()
        } catch {
            var expression = "\(type(of: predicate.expression))"
            if expression.count > 400 { expression = expression.prefix(400) + "…" }
            throw FetchError(
                code: .predicateFailed,
                message: "Evaluating the predicate of a FetchDescriptor<\(T.self)> on \(model.persistentModelID) threw "
                    + "\(error). The expression: \(expression). Guard optionals with `!= nil`, `??` or `flatMap` "
                    + "instead of `!`, and refer only to the model's properties and captured values.",
                model: model.persistentModelID, underlying: "\(error)")
        }
    }
}
