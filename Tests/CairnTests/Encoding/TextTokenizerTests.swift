import Foundation
import Testing

@testable import Cairn

@Suite struct TextTokenizerTests {
    static func terms(_ text: String) -> [String] {
        TextTokenizer.terms(of: text).map { String(decoding: $0, as: UTF8.self) }
    }

    static func spans(_ text: String) -> [String] {
        var spans: [String] = []
        TextTokenizer.forEachToken(in: text) { _, range in
            spans.append(String(decoding: Array(text.utf8)[range], as: UTF8.self))
        }
        return spans
    }

    @Test func wordsFollowUnicodeWordBoundaries() {
        #expect(
            Self.terms("Hello, world! It's 3.14 or 1,000 e.g. U.S.A. snake_case") == [
                "hello", "world", "it's", "3.14", "or", "1,000", "e.g", "u.s.a", "snake_case",
            ])
        #expect(Self.terms("end. Next: (parens) [x]-y") == ["end", "next", "parens", "x", "y"])
        // A mid-word character joins two letters or two digits, never a letter and a digit.
        #expect(Self.terms("a:b 1:2 a.1 1.a") == ["a:b", "1", "2", "a", "1", "1", "a"])
        #expect(Self.terms("") == [] && Self.terms(" \n\t—…!?") == [])
    }

    @Test func caseAccentsWidthAndLigaturesAreFolded() {
        #expect(Self.terms("Café CAFÉ cafe\u{301} Ｃａｆｅ") == ["cafe", "cafe", "cafe", "cafe"])
        #expect(Self.terms("Straße İstanbul ﬁle Ærø") == ["strasse", "istanbul", "file", "ærø"])
        #expect(Self.terms("can’t can't") == ["can't", "can't"])
        #expect(Self.terms("soft\u{AD}hyphen") == ["softhyphen"])
    }

    @Test func chineseAndJapaneseAreSplitIntoPairs() {
        #expect(Self.terms("東京都") == ["東京", "京都"])
        #expect(Self.terms("京") == ["京"])
        #expect(Self.terms("カタカナ and 漢字") == ["カタ", "タカ", "カナ", "and", "漢字"])
        #expect(Self.terms("ｶﾀｶﾅ") == Self.terms("カタカナ"))
        #expect(Self.terms("한국어 텍스트") == ["한국어", "텍스트"])
    }

    @Test func tokensKnowWhereTheyCameFrom() {
        #expect(Self.spans("Can’t stop, Café!") == ["Can’t", "stop", "Café"])
        #expect(Self.spans("x 東京都 y") == ["x", "東京", "京都", "y"])
    }

    @Test func longWordsAreCutAtACharacter() {
        let long = String(repeating: "é", count: 100)
        let term = TextTokenizer.terms(of: long)[0]
        #expect(
            term.count <= TextTokenizer.maximumTermLength
                && String(decoding: term, as: UTF8.self) == String(repeating: "e", count: 100))
        let wide = String(repeating: "ж", count: 100)
        let cut = TextTokenizer.terms(of: wide)[0]
        #expect(cut.count == 128 && String(validating: cut, as: UTF8.self) == String(repeating: "ж", count: 64))
    }

    /// Ideographs and kana are kept as they are, without Foundation, exactly as Foundation's
    /// width folding would give them: every character of the ranges, alone and in pairs.
    @Test func plainIdeographsFoldAsFoundationFoldsThem() {
        var random = SeededGenerator(seed: 29)
        for range in TextFolding.plainIdeographs {
            let scalars = range.compactMap(Unicode.Scalar.init)
            for (index, scalar) in scalars.enumerated() {
                let other = scalars[Int.random(in: 0..<scalars.count, using: &random)]
                for word in [String(scalar), String(scalar) + String(other)] where index % 7 == 0 || word.count == 1 {
                    var term: [UInt8] = []
                    Array(word.utf8).withUnsafeBufferPointer { TextFolding.fold($0, ideographic: true, into: &term) }
                    #expect(term == Array(word.folding(options: [.widthInsensitive], locale: nil).utf8), "\(word)")
                }
            }
        }
    }
}
