/// What ``ModelContainer/verify()`` found: how many rows and entries each entity and table holds,
/// and every problem, each with the identifiers involved.
///
/// ```swift
/// let report = try container.verify()
/// if !report.isClean {
///     for problem in report.problems { print(problem) }
/// }
/// ```
public struct VerificationReport: Sendable, CustomStringConvertible {
    /// One thing that is wrong in the store.
    ///
    /// ```swift
    /// for problem in report.problems where problem.kind == .asymmetricEdge { print(problem.identifiers) }
    /// ```
    public struct Problem: Sendable, CustomStringConvertible {
        /// What kind of problem this is. New kinds may be added; keep a `default` in a `switch`.
        ///
        /// ```swift
        /// if problem.kind == .damagedRecord { … }
        /// ```
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            private let name: String
            private init(_ name: String) { self.name = name }

            /// The kind's name.
            ///
            /// ```swift
            /// VerificationReport.Problem.Kind.damagedRecord.description   // "damagedRecord"
            /// ```
            public var description: String { name }

            /// A record (or its row key) fails its checksum or cannot be decoded.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .damagedRecord }
            /// ```
            public static let damagedRecord = Kind("damagedRecord")
            /// A uniqueness, index or relationship entry fails its checksum or has the wrong size.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .damagedEntry }
            /// ```
            public static let damagedEntry = Kind("damagedEntry")
            /// A row lacks the uniqueness or index entry its values call for.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .missingEntry }
            /// ```
            public static let missingEntry = Kind("missingEntry")
            /// A uniqueness or index entry names a row that does not exist, or under a key its
            /// row's values do not give.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .strayEntry }
            /// ```
            public static let strayEntry = Kind("strayEntry")
            /// Two rows hold the same values of a uniqueness constraint.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .duplicateUniqueValue }
            /// ```
            public static let duplicateUniqueValue = Kind("duplicateUniqueValue")
            /// An edge has no matching edge in the inverse relationship.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .asymmetricEdge }
            /// ```
            public static let asymmetricEdge = Kind("asymmetricEdge")
            /// An edge's owner or target row does not exist.
            ///
            /// ```swift
            /// report.problems.filter { $0.kind == .missingRow }
            /// ```
            public static let missingRow = Kind("missingRow")
            /// A page of the data file is damaged: out of bounds, of the wrong kind, used twice,
            /// with keys out of order, or miscounted. The rows and entries are then not read
            /// through the storage engine, which could crash on such a page.
            ///
            /// ```swift
            /// if report.problems.contains(where: { $0.kind == .damagedPage }) { restoreFromBackup() }
            /// ```
            public static let damagedPage = Kind("damagedPage")
        }

        /// What kind of problem this is.
        ///
        /// ```swift
        /// problem.kind   // .asymmetricEdge
        /// ```
        public var kind: Kind
        /// The table the problem is in, such as `u/Book/isbn`.
        ///
        /// ```swift
        /// problem.table   // "r/Book/chapters"
        /// ```
        public var table: String
        /// The models involved, when their identifiers are known.
        ///
        /// ```swift
        /// for id in problem.identifiers { context.delete(context.model(for: id)) }
        /// ```
        public var identifiers: [PersistentIdentifier]
        /// What is wrong, in words.
        ///
        /// ```swift
        /// print(problem.message)
        /// ```
        public var message: String

        /// The kind, the table and the message on one line.
        ///
        /// ```swift
        /// print(problem)   // "asymmetricEdge in r/Book/chapters: …"
        /// ```
        public var description: String { "\(kind) in \(table): \(message)" }
    }

    /// The rows of each entity, by entity name.
    ///
    /// ```swift
    /// report.rowsByEntity["Book"]   // 1200
    /// ```
    public internal(set) var rowsByEntity: [String: Int] = [:]
    /// The entries of each table the verifier read, by table name (each duplicate counts).
    ///
    /// ```swift
    /// report.entriesByTable["i/Author/lastName"]
    /// ```
    public internal(set) var entriesByTable: [String: Int] = [:]
    /// Every problem found, in the order found.
    ///
    /// ```swift
    /// report.problems.count
    /// ```
    public internal(set) var problems: [Problem] = []

    /// Whether no problem was found.
    ///
    /// ```swift
    /// #expect(try container.verify().isClean)
    /// ```
    public var isClean: Bool { problems.isEmpty }

    /// A summary: counts, then one line per problem.
    ///
    /// ```swift
    /// print(report)
    /// ```
    public var description: String {
        let rows = rowsByEntity.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) rows" }
        let header = rows.joined(separator: ", ") + "; \(problems.count) problems"
        return ([header] + problems.map(\.description)).joined(separator: "\n")
    }

    mutating func add(
        _ kind: Problem.Kind, table: String, _ identifiers: [PersistentIdentifier] = [], _ message: String
    ) {
        problems.append(Problem(kind: kind, table: table, identifiers: identifiers, message: message))
    }
}
