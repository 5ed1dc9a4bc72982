import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct RelationshipMacroTests {
    /// The message for a `@Relationship` property `value` of type `type`.
    private func notAModelMessage(_ property: String, _ type: String) -> String {
        """
        '@Relationship' needs a model type, an optional of one, or an array of one; \
        '\(property)' is '\(type)'; remove '@Relationship' to store it as an attribute
        """
    }

    @Test func everyRelationshipShapeReachesTheMetadata() {
        assertExpansion(
            #"""
            @Model
            final class Author {
                var name: String
                // To-many with an explicit inverse; the other side is a to-one without `@Relationship`.
                @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []
                // To-one without an inverse.
                @Relationship(deleteRule: .nullify) var agent: Agent?
                // Many-to-many.
                @Relationship(inverse: \Society.members) var societies: [Society] = []
                // Self-referential, with counts and a former name.
                @Relationship(.unique, deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5,
                              originalName: "peers", inverse: \Author.colleagues, hashModifier: "v1")
                var colleagues: [Author] = []
                @Relationship var mentor: Author?
                // To-one, not optional, qualified.
                @Relationship(deleteRule: .noAction) var publisher: Library.Publisher
                var editor: Author?
            }
            """#,
            expandedSource: #"""
                final class Author {
                    @_PersistedProperty(0)
                    var name: String
                    // To-many with an explicit inverse; the other side is a to-one without `@Relationship`.
                    @_PersistedProperty(1) var books: [Book] = []
                    // To-one without an inverse.
                    @_PersistedProperty(2) var agent: Agent?
                    // Many-to-many.
                    @_PersistedProperty(3) var societies: [Society] = []
                    // Self-referential, with counts and a former name.
                    @_PersistedProperty(4)
                    var colleagues: [Author] = []
                    @_PersistedProperty(5) var mentor: Author?
                    // To-one, not optional, qualified.
                    @_PersistedProperty(6) var publisher: Library.Publisher
                    @_PersistedProperty(7)
                    var editor: Author?

                \#(ExpectedExpansion.modelState(of: "Author"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$name = Cairn._PersistedValue()
                        self._$books = Cairn._PersistedValue()
                        self._$agent = Cairn._PersistedValue()
                        self._$societies = Cairn._PersistedValue()
                        self._$colleagues = Cairn._PersistedValue()
                        self._$mentor = Cairn._PersistedValue()
                        self._$publisher = Cairn._PersistedValue()
                        self._$editor = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "name", keyPath: \Author.name, storage: \Author._$name, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "books", keyPath: \Author.books, storage: \Author._$books, index: 1, defaultValue: [], relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: \Book.author, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "agent", keyPath: \Author.agent, storage: \Author._$agent, index: 2, relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .nullify, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "societies", keyPath: \Author.societies, storage: \Author._$societies, index: 3, defaultValue: [], relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .nullify, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: \Society.members, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "colleagues", keyPath: \Author.colleagues, storage: \Author._$colleagues, index: 4, defaultValue: [], relationship: Cairn.Schema.RelationshipMetadata(options: [.unique], deleteRule: .deny, minimumModelCount: 1, maximumModelCount: 5, originalName: "peers", inverse: \Author.colleagues, hashModifier: "v1")),
                            Cairn.Schema.PropertyMetadata(name: "mentor", keyPath: \Author.mentor, storage: \Author._$mentor, index: 5, relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .nullify, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "publisher", keyPath: \Author.publisher, storage: \Author._$publisher, index: 6, relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .noAction, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: nil, hashModifier: nil)),
                            Cairn.Schema.PropertyMetadata(name: "editor", keyPath: \Author.editor, storage: \Author._$editor, index: 7, attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$name, 0)
                        try encoder.encode(&_$books, 1)
                        try encoder.encode(&_$agent, 2)
                        try encoder.encode(&_$societies, 3)
                        try encoder.encode(&_$colleagues, 4)
                        try encoder.encode(&_$mentor, 5)
                        try encoder.encode(&_$publisher, 6)
                        try encoder.encode(&_$editor, 7)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$name, 0)
                        try decoder.decode(&_$books, 1)
                        try decoder.decode(&_$agent, 2)
                        try decoder.decode(&_$societies, 3)
                        try decoder.decode(&_$colleagues, 4)
                        try decoder.decode(&_$mentor, 5)
                        try decoder.decode(&_$publisher, 6)
                        try decoder.decode(&_$editor, 7)
                    }
                }

                extension Author: Cairn.PersistentModel {
                }

                extension Author: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    // The test harness cannot apply this fix-it once `@Model` has added `@_PersistedProperty` to the
    // member (it crashes mapping the rewritten member back to the source), so
    // `nonModelTypeFixItRemovesTheAttribute` applies it without `@Model`.
    @Test func nonModelTypeIsStoredAsAnAttribute() {
        assertExpansion(
            """
            @Model
            final class Book {
                var title: String
                @Relationship(deleteRule: .cascade)
                var tags: [String] = []
            }
            """,
            expandedSource: #"""
                final class Book {
                    @_PersistedProperty(0)
                    var title: String
                    @_PersistedProperty(1)
                    var tags: [String] = []

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$title = Cairn._PersistedValue()
                        self._$tags = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "title", keyPath: \Book.title, storage: \Book._$title, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "tags", keyPath: \Book.tags, storage: \Book._$tags, index: 1, defaultValue: [], attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$title, 0)
                        try encoder.encode(&_$tags, 1)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$title, 0)
                        try decoder.decode(&_$tags, 1)
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: notAModelMessage("tags", "[String]"),
                    line: 4, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func nonModelTypeFixItRemovesTheAttribute() {
        assertExpansion(
            """
            final class Book {
                var title: String
                @Relationship(deleteRule: .cascade)
                var tags: [String] = []
            }
            """,
            expandedSource: """
                final class Book {
                    var title: String
                    var tags: [String] = []
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: notAModelMessage("tags", "[String]"),
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]
                )
            ],
            applyFixIts: ["Remove '@Relationship'"],
            fixedSource: """
                final class Book {
                    var title: String
                    var tags: [String] = []
                }
                """
        )
    }

    @Test(arguments: [
        "String", "Int?", "[String]", "[String: Int]", "(Int, Int)", "Swift.String", "[String]?",
        "Set<Chapter>", "[[Chapter]]", "[Chapter?]",
    ])
    func nonModelTypesAreReported(type: String) {
        assertExpansion(
            """
            final class Book {
                @Relationship var value: \(type)
            }
            """,
            expandedSource: """
                final class Book {
                    var value: \(type)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: notAModelMessage("value", type),
                    line: 2, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]
                )
            ],
            fixedSource: """
                final class Book {
                    var value: \(type)
                }
                """
        )
    }

    @Test(arguments: [
        "Chapter", "Chapter?", "Chapter!", "[Chapter]", "Optional<Chapter>", "Array<Chapter>",
        "Library.Chapter", "[Library.Chapter]", "[Chapter]?", "Optional<[Chapter]>",
    ])
    func modelTypesAreAccepted(type: String) {
        assertExpansion(
            """
            final class Book {
                @Relationship var value: \(type)
            }
            """,
            expandedSource: """
                final class Book {
                    var value: \(type)
                }
                """
        )
    }
}
