import SwiftParser
import SwiftSyntax
import Testing

@testable import CairnMacros

/// The initial values whose type `@Model` tells without the compiler, and those it leaves to an
/// annotation (`InferredType.swift`).
@Suite struct InferredTypeTests {
    private func inferred(_ source: String) -> String? {
        InferredType.of(ExprSyntax("\(raw: source)"))?.trimmedDescription
    }

    @Test(arguments: [
        ("false", "Bool"), ("true", "Bool"), ("0", "Int"), ("-3", "Int"), ("1.5", "Double"), ("-0.5", "Double"),
        (#""""#, "String"), (#""Title \(1)""#, "String"), (#"["a", "b"]"#, "[String]"), ("[1, 2]", "[Int]"),
        ("Date()", "Date"), ("UUID()", "UUID"), ("Foundation.Date()", "Foundation.Date"),
        ("Set<String>()", "Set<String>"), ("[String]()", "[String]"), ("[String: Int]()", "[String: Int]"),
        (#"URL(string: "https://example.org")!"#, "URL"), ("Kind.a", "Kind"), ("Date.now", "Date"),
        (#"Kind.custom("x")"#, "Kind"), ("Double.pi", "Double"),
    ])
    func simpleInitialValuesTellTheirType(source: String, type: String) {
        #expect(inferred(source) == type)
    }

    @Test(arguments: [
        "nil", "[]", "[:]", ".a", "makeValue()", "defaultValue", #"Kind(rawValue: "a")"#, "Self.defaultValue",
        #"[1, "a"]"#, "Date() + 1", "value.count", "{ 1 }()", #"URL(string: "x")"#, #"UUID(uuidString: "x")"#,
        #"Int("5")"#,
    ])
    func otherInitialValuesNeedAnAnnotation(source: String) {
        #expect(inferred(source) == nil)
    }
}
