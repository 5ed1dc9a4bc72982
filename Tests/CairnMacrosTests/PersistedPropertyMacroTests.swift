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

                    private static let _$keyPath_title = \Book.title
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

                    private static let _$keyPath_subtitle = \Book.subtitle
                    var cover: Data! {
                \#(ExpectedExpansion.persistedAccessors("cover", 1))
                    }

                    @exclusivity(unchecked) private var _$cover: Cairn._PersistedValue<Data?>

                    private static let _$keyPath_cover = \Book.cover
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

                    private static let _$keyPath_default = \Book.`default`
                }
                """#
        )
    }

    /// `text` one level deeper (four spaces more on each line).
    private static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
    }

    /// A class that cannot have static stored properties (one inside a generic type is generic
    /// itself) passes the key path literal: no static is made.
    @Test func aGenericContextUsesTheKeyPathLiteral() {
        assertExpansion(
            """
            struct Shelf<Item> {
                final class Book {
                    @_PersistedProperty(0) var title: String
                }
            }
            """,
            expandedSource: #"""
                struct Shelf<Item> {
                    final class Book {
                        var title: String {
                \#(Self.indented(ExpectedExpansion.persistedAccessors("title", 0, owner: nil)))
                        }

                        @exclusivity(unchecked) private var _$title: Cairn._PersistedValue<String>
                    }
                }
                """#
        )
    }
}
