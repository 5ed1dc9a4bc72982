import Testing

@Suite struct IndexMacroTests {
    @Test func severalGroupsBecomeOneArrayEach() {
        assertExpansion(
            #"""
            final class Book {
                #Index<Book>([\.title], [\.author, \.year])
            }
            """#,
            expandedSource: #"""
                final class Book {
                    static var _$indices: [[AnyKeyPath]] {
                        [[\Book.title], [\Book.author, \Book.year]]
                    }
                }
                """#
        )
    }

    @Test func publicModelGetsAPublicIndexList() {
        assertExpansion(
            #"""
            public final class Book {
                #Index<Book>([\.title])
            }
            """#,
            expandedSource: #"""
                public final class Book {
                    public static var _$indices: [[AnyKeyPath]] {
                        [[\Book.title]]
                    }
                }
                """#
        )
    }
}
