import Testing

@Suite struct UniqueMacroTests {
    @Test func severalGroupsBecomeOneArrayEach() {
        assertExpansion(
            #"""
            final class Book {
                #Unique<Book>([\.isbn], [\.title, \.year], [\Book.slug])
            }
            """#,
            expandedSource: #"""
                final class Book {
                    static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Book.isbn], [\Book.title, \Book.year], [\Book.slug]]
                    }
                }
                """#
        )
    }

    @Test func rootComesFromTheEnclosingTypeWithoutAGenericArgument() {
        assertExpansion(
            #"""
            public final class Book {
                #Unique([\.isbn])
            }
            """#,
            expandedSource: #"""
                public final class Book {
                    public static var _$uniquenessConstraints: [[AnyKeyPath]] {
                        [[\Book.isbn]]
                    }
                }
                """#
        )
    }
}
