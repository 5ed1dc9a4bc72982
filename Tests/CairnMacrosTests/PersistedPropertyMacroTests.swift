import Testing

@Suite struct PersistedPropertyMacroTests {
    @Test func accessorsGoThroughTheStoragePeer() {
        assertExpansion(
            """
            final class Book {
                @_PersistedProperty(2)
                var title: String = "Untitled"
            }
            """,
            expandedSource: #"""
                final class Book {
                    var title: String {
                \#(ExpectedExpansion.persistedAccessors("title", 2))
                    }

                    @exclusivity(unchecked) private var _$title: Cairn._PersistedValue<String>
                }
                """#
        )
    }

    @Test func optionalIsStoredAsOptional() {
        assertExpansion(
            """
            final class Book {
                @_PersistedProperty(0) var subtitle: String?
                @_PersistedProperty(1) var cover: Data!
            }
            """,
            expandedSource: #"""
                final class Book {
                    var subtitle: String? {
                \#(ExpectedExpansion.persistedAccessors("subtitle", 0))
                    }

                    @exclusivity(unchecked) private var _$subtitle: Cairn._PersistedValue<String?>
                    var cover: Data! {
                \#(ExpectedExpansion.persistedAccessors("cover", 1))
                    }

                    @exclusivity(unchecked) private var _$cover: Cairn._PersistedValue<Data?>
                }
                """#
        )
    }

    @Test func escapedNameKeepsItsBackticks() {
        assertExpansion(
            """
            final class Book {
                @_PersistedProperty(0) var `default`: Bool
            }
            """,
            expandedSource: #"""
                final class Book {
                    var `default`: Bool {
                \#(ExpectedExpansion.persistedAccessors("default", 0, identifier: "`default`"))
                    }

                    @exclusivity(unchecked) private var _$default: Cairn._PersistedValue<Bool>
                }
                """#
        )
    }
}
