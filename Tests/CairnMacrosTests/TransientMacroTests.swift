import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct TransientMacroTests {
    @Test func storedAndComputedTransientsStayOrdinary() {
        assertExpansion(
            """
            @Model
            final class Book {
                var title: String
                @Transient var isSelected: Bool = false
                @Transient var cachedCover: Data?
                @Transient var shortTitle: String { String(title.prefix(10)) }
                var pages: Int = 0
            }
            """,
            expandedSource: #"""
                final class Book {
                    @_PersistedProperty(0)
                    var title: String
                    var isSelected: Bool = false
                    var cachedCover: Data?
                    var shortTitle: String { String(title.prefix(10)) }
                    @_PersistedProperty(1)
                    var pages: Int = 0

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$title = Cairn._PersistedValue()
                        self._$pages = Cairn._PersistedValue()
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(name: "title", keyPath: \Book.title, storage: \Book._$title, index: 0, attribute: nil),
                            Cairn.Schema.PropertyMetadata(transient: "isSelected", keyPath: \Book.isSelected),
                            Cairn.Schema.PropertyMetadata(transient: "cachedCover", keyPath: \Book.cachedCover),
                            Cairn.Schema.PropertyMetadata(name: "pages", keyPath: \Book.pages, storage: \Book._$pages, index: 1, defaultValue: 0, attribute: nil),
                        ]
                    }

                    func _$encodeFields(into encoder: inout Cairn._FieldEncoder) throws(Cairn._FieldCodingError) {
                        try encoder.encode(&_$title, 0)
                        try encoder.encode(&_$pages, 1)
                    }

                    func _$decodeFields(from decoder: inout Cairn._FieldDecoder) throws(Cairn._FieldCodingError) {
                        try decoder.decode(&_$title, 0)
                        try decoder.decode(&_$pages, 1)
                    }
                }

                extension Book: Cairn.PersistentModel {
                }

                extension Book: Observation.Observable {
                }
                """#,
            macros: CairnMacroSpecs.withoutPersistedProperty
        )
    }

    @Test func storedTransientNeedsAnInitialValue() {
        assertExpansion(
            """
            @Model
            final class Book {
                @Transient var isSelected: Bool
            }
            """,
            expandedSource: #"""
                final class Book {
                    var isSelected: Bool

                \#(ExpectedExpansion.modelState(of: "Book"))

                    required init(_$modelState: Cairn._ModelState, _$constants: Cairn._ConstantFields) {
                        self._$modelState = _$modelState
                    }

                    static var schemaMetadata: [Cairn.Schema.PropertyMetadata] {
                        [
                            Cairn.Schema.PropertyMetadata(transient: "isSelected", keyPath: \Book.isSelected),
                        ]
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
                """#,
            diagnostics: [
                DiagnosticSpec(
                    message: """
                        '@Transient' property 'isSelected' needs an initial value; \
                        models loaded from the store are created without running your 'init'
                        """,
                    line: 3, column: 20, fixIts: [FixItSpec(message: "Insert ' = <#value#>'")]
                )
            ],
            macros: CairnMacroSpecs.withoutPersistedProperty,
            applyFixIts: ["Insert ' = <#value#>'"],
            fixedSource: """
                @Model
                final class Book {
                    @Transient var isSelected: Bool = <#value#>
                }
                """
        )
    }
}
