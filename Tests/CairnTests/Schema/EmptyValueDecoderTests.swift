import Foundation
import Testing

@testable import Cairn

/// The empty values a model whose row cannot be read shows for types without an obvious one.
@Suite struct EmptyValueDecoderTests {
    struct Inner: Codable, Equatable { var count: Int; var ratio: Double; var on: Bool }
    struct Outer: Codable, Equatable {
        var name: String
        var note: String?
        var tags: [String]
        var inner: Inner
        var when: Date
        var small: UInt8
    }
    struct WithIdentifier: Codable, Equatable { var id: UUID }
    struct WithLink: Codable { var link: URL }
    enum Letter: String, Codable { case a, b }
    enum Blank: String, Codable { case blank = "", full }

    @Test func aStructOfPlainFieldsDecodesFromEmptyValues() {
        let empty = placeholder(Outer.self)
        #expect(
            empty
                == Outer(
                    name: "", note: nil, tags: [], inner: Inner(count: 0, ratio: 0, on: false),
                    when: Date(timeIntervalSinceReferenceDate: 0), small: 0))
    }

    @Test func nativeValuesInsideAStructTakeTheirRegisteredEmptyValue() {
        let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        #expect(placeholder(WithIdentifier.self) == WithIdentifier(id: zero), "as a UUID attribute's placeholder")
        #expect(placeholder(UUID.self) == zero)
    }

    @Test func typesThatRefuseEmptyValuesHaveNone() {
        #expect(placeholder(WithLink.self) == nil, "a URL has no empty value and does not decode from \"\"")
        #expect(placeholder(Letter.self) == nil, "no case has the raw value \"\"")
        #expect(placeholder(Blank.self) == .blank)
    }
}
