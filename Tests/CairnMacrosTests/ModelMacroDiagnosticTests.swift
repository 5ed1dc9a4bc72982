import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct ModelMacroDiagnosticTests {
    /// The end of every `#Unique`/`#Index` key path message.
    private let advice = #"use '\.name' with a persisted property that is not a relationship"#

    @Test func structIsReplacedWithFinalClass() {
        assertExpansion(
            """
            @Model
            public struct Book {
                var title: String
            }
            """,
            expandedSource: """
                public struct Book {
                    var title: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' cannot be applied to struct type 'Book'; models are classes",
                    line: 2, column: 8, fixIts: [FixItSpec(message: "Replace 'struct' with 'final class'")]
                )
            ],
            applyFixIts: ["Replace 'struct' with 'final class'"],
            fixedSource: """
                @Model
                public final class Book {
                    var title: String
                }
                """
        )
    }

    @Test(arguments: ["enum", "actor", "protocol"])
    func otherTypesAreRejected(keyword: String) {
        assertExpansion(
            """
            @Model
            \(keyword) Book {
            }
            """,
            expandedSource: """
                \(keyword) Book {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' cannot be applied to \(keyword) type 'Book'; models are classes",
                    line: 2, column: 1
                )
            ]
        )
    }

    @Test func extensionIsRejected() {
        assertExpansion(
            """
            @Model
            extension Book {
            }
            """,
            expandedSource: """
                extension Book {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' cannot be applied to an extension of 'Book'; attach it to the class declaration",
                    line: 2, column: 1
                )
            ]
        )
    }

    @Test func missingTypeAnnotationInsertsPlaceholder() {
        assertExpansion(
            """
            @Model
            final class Book {
                var pages = defaultPages
            }
            """,
            expandedSource: """
                final class Book {
                    var pages = defaultPages

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Model' cannot tell the type of stored property 'pages' from its initial value; add a type annotation",
                    line: 3, column: 9, fixIts: [FixItSpec(message: "Insert ': <#Type#>'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Insert ': <#Type#>'"],
            fixedSource: """
                @Model
                final class Book {
                    var pages: <#Type#> = defaultPages
                }
                """
        )
    }

    @Test(arguments: [
        "(Int) -> Void", "@Sendable () -> Void", "(Int, Int)", "Any", "AnyObject", "any Sendable",
        "some Sendable", "Int.Type", "[Any]", "((Int) -> Void)?",
    ])
    func unsupportedTypeIsMarkedTransient(type: String) {
        assertExpansion(
            """
            @Model
            final class Book {
                var value: \(type)
            }
            """,
            expandedSource: """
                final class Book {
                    var value: \(type)

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Model' cannot store property 'value' of type '\(type)'; use a Codable type or mark it '@Transient'",
                    line: 3, column: 16, fixIts: [FixItSpec(message: "Insert '@Transient'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Insert '@Transient'"],
            fixedSource: """
                @Model
                final class Book {
                    @Transient var value: \(type)
                }
                """
        )
    }

    @Test func letWithInitialValueIsReplacedWithVar() {
        assertExpansion(
            """
            @Model
            final class Book {
                let isbn: String = ""
            }
            """,
            expandedSource: """
                final class Book {
                    let isbn: String = ""

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' cannot persist 'let' property 'isbn' with an initial value: a model read back could not take the stored value; declare it 'var', or drop the initial value and set it in 'init'",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: """
                @Model
                final class Book {
                    var isbn: String = ""
                }
                """
        )
    }

    @Test func letRelationshipIsReplacedWithVar() {
        assertExpansion(
            """
            @Model
            final class Book {
                @Relationship let author: Author?
            }
            """,
            expandedSource: """
                final class Book {
                    let author: Author?

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' cannot persist relationship 'author' as a 'let': a relationship changes as its inverse does; declare it 'var'",
                    line: 3, column: 19, fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: """
                @Model
                final class Book {
                    @Relationship var author: Author?
                }
                """
        )
    }

    @Test func lazyPropertyIsMarkedTransient() {
        assertExpansion(
            """
            @Model
            final class Book {
                lazy var summary: String = "…"
            }
            """,
            expandedSource: """
                final class Book {
                    lazy var summary: String = "…"

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@Model' cannot persist lazy property 'summary'; mark it '@Transient'",
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Insert '@Transient'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Insert '@Transient'"],
            fixedSource: """
                @Model
                final class Book {
                    @Transient lazy var summary: String = "…"
                }
                """
        )
    }

    @Test func observedPropertyIsMarkedTransient() {
        assertExpansion(
            """
            @Model
            final class Book {
                var title: String = "" {
                    didSet { print(title) }
                }
            }
            """,
            expandedSource: """
                final class Book {
                    var title: String = "" {
                        didSet { print(title) }
                    }

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@Model' cannot persist observed property 'title'; \
                        mark it '@Transient' or move the 'willSet'/'didSet' code elsewhere
                        """,
                    line: 3, column: 9, fixIts: [FixItSpec(message: "Insert '@Transient'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Insert '@Transient'"],
            fixedSource: """
                @Model
                final class Book {
                    @Transient var title: String = "" {
                        didSet { print(title) }
                    }
                }
                """
        )
    }

    @Test func severalPropertiesInOneDeclarationAreRejected() {
        assertExpansion(
            """
            @Model
            final class Book {
                var first: String = "", last: String = ""
            }
            """,
            expandedSource: """
                final class Book {
                    var first: String = "", last: String = ""

                \(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        []
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'@Model' cannot persist 'first, last' declared together; declare each property with its own 'var'",
                    line: 3, column: 9
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func uniqueKeyPathMustNameAnAttribute() {
        assertExpansion(
            #"""
            @Model
            final class Book {
                var isbn: String
                @Transient var nickname: String = ""
                #Unique<Book>([\.isbn], [\.nickname])
            }
            """#,
            expandedSource: #"""
                final class Book {
                    @_PersistedProperty(0)
                    var isbn: String
                    var nickname: String = ""
                    static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Book.isbn], [\Book.nickname]]
                    }

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$isbn = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "isbn", keyPath: \Book.isbn, storage: \Book._$isbn, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(transient: "nickname", keyPath: \Book.nickname),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$isbn, 0)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$isbn, 0)
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"'#Unique' key path '\.nickname' does not name a stored attribute of 'Book'; \#(advice)"#,
                    line: 5, column: 30
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func indexKeyPathMustNameAnAttribute() {
        assertExpansion(
            #"""
            @Model
            final class Book {
                var title: String
                @Relationship var author: Author?
                #Index<Book>([\Book.title], [\.author], [\.title.count], [\Author.name])
            }
            """#,
            expandedSource: #"""
                final class Book {
                    @_PersistedProperty(0)
                    var title: String
                    @_PersistedProperty(1) var author: Author?
                    static var _$indices: [[AnyKeyPath]] {
                        [[\Book.title], [\Book.author], [\Book.title.count], [\Author.name]]
                    }

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$title = Cairn._PersistedValue()
                        self._$author = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "title", keyPath: \Book.title, storage: \Book._$title, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(name: "author", keyPath: \Book.author, storage: \Book._$author, index: 1, relationship: Cairn.Schema.RelationshipMetadata(options: [], deleteRule: .nullify, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: nil, hashModifier: nil)),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$title, 0)
                        try encoder.encode(&_$author, 1)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$title, 0)
                        try decoder.decode(&_$author, 1)
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"'#Index' key path '\.author' does not name a stored attribute of 'Book'; \#(advice)"#,
                    line: 5, column: 34
                ),
                DiagnosticSpec(
                    message:
                        #"'#Index' key path '\.title.count' does not name a stored attribute of 'Book'; \#(advice)"#,
                    line: 5, column: 46
                ),
                DiagnosticSpec(
                    message:
                        #"'#Index' key path '\Author.name' does not name a stored attribute of 'Book'; \#(advice)"#,
                    line: 5, column: 63
                ),
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }
}
