import Foundation

/// Splits text into the terms the full-text index stores and a query looks up: the one
/// tokenizer both use, so a word is found the way it was indexed.
///
/// - **Words** follow Unicode's word boundaries (UAX #29): runs of letters, digits, marks and
///   connectors (`_`), where one `'`, `’`, `.` or `:` between two letters, or one `.`, `,` or `;`
///   between two digits, stays inside the word ("can't", "e.g", "3.14", "1,000").
/// - **Chinese and Japanese**, written without spaces, are split into overlapping pairs of
///   characters (bigrams; one character alone is its own term), so "東京都" gives "東京" and
///   "京都", and a query for "京都" finds it. Korean is written with spaces and is split into
///   words.
/// - **Folding**: case, diacritics and width are folded ("Ｃafé" → "cafe", "Straße" → "strasse",
///   "ﬁle" → "file", "’" → "'"); Chinese and Japanese characters are folded for width only.
/// - A term is at most ``maximumTermLength`` bytes of UTF-8; a longer word is cut there.
///
/// Each token has its position (0, 1, 2, … in the text) and the UTF-8 offsets of the text it
/// came from, which matched ranges are made of.
///
/// ```swift
/// TextTokenizer.forEachToken(in: "Can’t stop Café") { term, range in … }
/// // "can't" 0..<7, "stop" 8..<12, "cafe" 13..<18
/// ```
enum TextTokenizer {
    /// The longest term, in bytes of UTF-8.
    static let maximumTermLength = 128

    /// Calls `body` with each token of `text`, in order: its folded term (UTF-8, valid only
    /// during the call) and the UTF-8 offsets of the text it came from. A word that is not all
    /// ASCII is folded through Foundation, which costs microseconds: `cache` keeps each such
    /// word's term, for a caller that tokenizes many texts (a save, an index build).
    static func forEachToken(
        in text: String, cache: FoldCache? = nil,
        _ body: (_ term: UnsafeBufferPointer<UInt8>, _ utf8Range: Range<Int>) throws -> Void
    ) rethrows {
        var text = text
        try text.withUTF8 { bytes in
            // An ASCII word, most of them, is lowered into `lowered` in place; another goes
            // through Foundation's folding into `folded`.
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumTermLength) { lowered in
                var scanner = Scanner(bytes: bytes)
                var folded: [UInt8] = []
                while let (span, ideographic) = scanner.next() {
                    let word = UnsafeBufferPointer(rebasing: bytes[span])
                    if scanner.wordIsASCII {
                        let count = TextFolding.foldASCII(word, into: lowered)
                        try body(UnsafeBufferPointer(rebasing: lowered[..<count]), span)
                        continue
                    }
                    if let cache {
                        try cache.withTerm(of: word, ideographic: ideographic) { term in
                            if !term.isEmpty { try body(term, span) }
                        }
                        continue
                    }
                    TextFolding.fold(word, ideographic: ideographic, into: &folded)
                    guard !folded.isEmpty else { continue }
                    try folded.withUnsafeBufferPointer { try body($0, span) }
                }
            }
        }
    }

    /// The terms of `text`, in order.
    ///
    /// ```swift
    /// TextTokenizer.terms(of: "Hello, World")   // ["hello", "world"] as UTF-8
    /// ```
    static func terms(of text: String) -> [[UInt8]] {
        var terms: [[UInt8]] = []
        forEachToken(in: text) { term, _ in terms.append(Array(term)) }
        return terms
    }

    /// What a character is to word breaking.
    enum CharacterClass: Equatable {
        case letter, digit, connector, extend, format
        /// A Chinese or Japanese character: split into bigrams.
        case ideograph
        /// Joins two letters (`:`, `·`).
        case midLetter
        /// Joins two digits (`,`, `;`).
        case midNumber
        /// Joins two letters or two digits (`.`, `'`, `’`).
        case midNumberLetter
        case other

        var isWordPart: Bool { self == .letter || self == .digit || self == .connector }
    }

    /// Walks a text's UTF-8, one token at a time.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// The characters of the ideograph run being split, and the next bigram's first one.
        var ideographs: [Range<Int>] = []
        var nextIdeograph = 0
        /// Whether the last token returned is all ASCII (folded by lowering its letters).
        private(set) var wordIsASCII = false

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// The UTF-8 offsets of the next token, and whether it is made of ideographs.
        mutating func next() -> (span: Range<Int>, ideographic: Bool)? {
            wordIsASCII = false
            if let bigram = nextBigram() { return (bigram, true) }
            while index < bytes.count {
                let (kind, length) = classify(at: index)
                if kind.isWordPart { return (word(from: index, kind: kind, length: length), false) }
                if kind == .ideograph {
                    readIdeographs(from: index)
                    if let bigram = nextBigram() { return (bigram, true) }
                    continue
                }
                index += length
            }
            return nil
        }

        /// The next bigram of the ideograph run (its one character, when it has one).
        private mutating func nextBigram() -> Range<Int>? {
            guard nextIdeograph < ideographs.count else { return nil }
            defer { nextIdeograph += 1 }
            if ideographs.count == 1 { return ideographs[0] }
            guard nextIdeograph + 1 < ideographs.count else { return nil }
            return ideographs[nextIdeograph].lowerBound..<ideographs[nextIdeograph + 1].upperBound
        }

        /// The word starting at `start`, whose first character is of `kind`.
        private mutating func word(from start: Int, kind: CharacterClass, length: Int) -> Range<Int> {
            var last = kind
            var end = start + length
            var isASCII = length == 1
            while end < bytes.count {
                // Letters and digits of ASCII, the most common, without the general steps.
                let byte = bytes[end]
                if byte < 0x80, byte | 0x20 &- 0x61 < 26 || byte &- 0x30 < 10 {
                    last = byte &- 0x30 < 10 ? .digit : .letter
                    end += 1
                    continue
                }
                let (next, nextLength) = classify(at: end)
                if nextLength > 1 { isASCII = false }
                if next.isWordPart {
                    last = next
                    end += nextLength
                } else if next == .extend || next == .format {
                    end += nextLength
                } else if next == .midLetter || next == .midNumber || next == .midNumberLetter,
                    end + nextLength < bytes.count
                {
                    let (after, afterLength) = classify(at: end + nextLength)
                    let joinsLetters = last == .letter && after == .letter && next != .midNumber
                    let joinsDigits = last == .digit && after == .digit && next != .midLetter
                    guard joinsLetters || joinsDigits else { break }
                    if afterLength > 1 { isASCII = false }
                    last = after
                    end += nextLength + afterLength
                } else {
                    break
                }
            }
            index = end
            wordIsASCII = isASCII
            return start..<end
        }

        /// Reads the run of ideographs starting at `start` into ``ideographs``, one range per
        /// character (a mark or format character after one belongs to it).
        private mutating func readIdeographs(from start: Int) {
            ideographs.removeAll(keepingCapacity: true)
            nextIdeograph = 0
            var position = start
            while position < bytes.count {
                let (kind, length) = classify(at: position)
                if kind == .ideograph {
                    ideographs.append(position..<position + length)
                } else if kind == .extend || kind == .format, let last = ideographs.last {
                    ideographs[ideographs.count - 1] = last.lowerBound..<position + length
                } else {
                    break
                }
                position += length
            }
            index = position
        }

        /// The class and UTF-8 length of the character starting at `position`.
        @inline(__always)
        private func classify(at position: Int) -> (CharacterClass, Int) {
            let first = bytes[position]
            if first < 0x80 { return (Self.asciiClass(first), 1) }
            let (scalar, length) = Self.decode(bytes, at: position)
            return (Self.classify(scalar), length)
        }

        /// The scalar at `position` of valid UTF-8 (a Swift string's), and its length.
        private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (Unicode.Scalar, Int) {
            let first = UInt32(bytes[position])
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
            guard position + length <= bytes.count else { return ("\u{FFFD}", 1) }
            var value = first & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length { value = value << 6 | UInt32(bytes[position + offset] & 0x3F) }
            return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
        }

        @inline(__always)
        private static func asciiClass(_ byte: UInt8) -> CharacterClass {
            if byte | 0x20 &- 0x61 < 26 { return .letter }
            if byte &- 0x30 < 10 { return .digit }
            switch byte {
            case UInt8(ascii: "_"): return .connector
            case UInt8(ascii: ":"): return .midLetter
            case UInt8(ascii: ","), UInt8(ascii: ";"): return .midNumber
            case UInt8(ascii: "."), UInt8(ascii: "'"): return .midNumberLetter
            default: return .other
            }
        }

        /// The class of a scalar beyond ASCII.
        static func classify(_ scalar: Unicode.Scalar) -> CharacterClass {
            switch scalar.value {
            case 0x00B7, 0x0387, 0x05F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A: return .midLetter
            case 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E: return .midNumberLetter
            case 0x037E, 0x0589, 0x060C, 0x060D, 0x066C, 0x07F8, 0x2044, 0xFE10, 0xFE14, 0xFE50, 0xFE54, 0xFF0C, 0xFF1B:
                return .midNumber
            case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: return .ideograph
            default: break
            }
            let properties = scalar.properties
            if properties.isIdeographic { return .ideograph }
            switch properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return .letter
            case .decimalNumber, .letterNumber, .otherNumber: return .digit
            case .nonspacingMark, .spacingMark, .enclosingMark: return .extend
            case .connectorPunctuation: return .connector
            case .format: return .format
            default: return .other
            }
        }
    }
}

/// The terms of the words a tokenizer folded through Foundation (those not all ASCII), by the
/// word's bytes: a word met again is looked up, not folded again. Folding is a pure function of
/// the word, so the cache changes no term. For one save or one index build, on one thread.
///
/// ```swift
/// let cache = FoldCache()
/// TextTokenizer.forEachToken(in: text, cache: cache) { term, range in … }
/// ```
final class FoldCache {
    /// Words and ideograph runs apart, since they fold differently.
    private var words = TermTable(), ideographs = TermTable()
    private var wordTerms: [[UInt8]] = [], ideographTerms: [[UInt8]] = []

    /// Calls `body` with the term of `word` (empty when it folds to nothing).
    func withTerm<R>(
        of word: UnsafeBufferPointer<UInt8>, ideographic: Bool, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        let id = ideographic ? ideographs.intern(word) : words.intern(word)
        let known = ideographic ? ideographTerms.count : wordTerms.count
        if id == known {
            var term: [UInt8] = []
            TextFolding.fold(word, ideographic: ideographic, into: &term)
            if ideographic { ideographTerms.append(term) } else { wordTerms.append(term) }
        }
        return try (ideographic ? ideographTerms[id] : wordTerms[id]).withUnsafeBufferPointer(body)
    }
}

/// How a word's bytes become a term: case, diacritics and width folded (ideographs: width only),
/// format characters (a soft hyphen, a zero-width joiner) dropped, cut to
/// ``TextTokenizer/maximumTermLength`` bytes.
enum TextFolding {
    /// Writes the term of an ASCII word into `term`: its letters lowered.
    @inline(__always)
    static func foldASCII(_ word: UnsafeBufferPointer<UInt8>, into term: inout [UInt8]) {
        term.removeAll(keepingCapacity: true)
        for byte in word.prefix(TextTokenizer.maximumTermLength) { term.append(lowered(byte)) }
    }

    /// Whether every character of `word` (valid UTF-8) is a CJK ideograph, kana, bopomofo or
    /// Hangul syllable: characters Foundation's width folding does not change.
    static func hasOnlyPlainIdeographs(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        String(decoding: word, as: UTF8.self).unicodeScalars.allSatisfy { scalar in
            plainIdeographs.contains { $0.contains(scalar.value) }
        }
    }

    /// CJK Unified Ideographs and extensions A and B, compatibility ideographs, hiragana,
    /// katakana (without the half-width forms), bopomofo and Hangul syllables.
    static let plainIdeographs: [ClosedRange<UInt32>] = [
        0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0xF900...0xFAFF, 0x3041...0x3096, 0x30A1...0x30FA,
        0x3105...0x312F, 0xAC00...0xD7A3,
    ]

    /// The same into `term`, which has room for ``TextTokenizer/maximumTermLength`` bytes;
    /// returns how many it wrote (the word's, up to that length).
    @inline(__always)
    static func foldASCII(_ word: UnsafeBufferPointer<UInt8>, into term: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let count = min(word.count, TextTokenizer.maximumTermLength, term.count)
        for index in 0..<count { term[index] = lowered(word[index]) }
        return count
    }

    @inline(__always)
    private static func lowered(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// Writes the term of `word` into `term`, replacing what it held.
    static func fold(_ word: UnsafeBufferPointer<UInt8>, ideographic: Bool, into term: inout [UInt8]) {
        if !word.contains(where: { $0 >= 0x80 }) { return foldASCII(word, into: &term) }
        term.removeAll(keepingCapacity: true)
        if ideographic && word.count <= TextTokenizer.maximumTermLength && hasOnlyPlainIdeographs(word) {
            // Width folding leaves these as they are (`TextTokenizerTests` holds it to Foundation).
            return term.append(contentsOf: word)
        }
        let text = String(decoding: word, as: UTF8.self)
        var folded = text.folding(
            options: ideographic ? [.widthInsensitive] : [.caseInsensitive, .diacriticInsensitive, .widthInsensitive],
            locale: nil)
        folded.unicodeScalars.removeAll { $0.properties.generalCategory == .format }
        term.append(contentsOf: folded.replacingOccurrences(of: "\u{2019}", with: "'").utf8)
        if term.count > TextTokenizer.maximumTermLength {
            var end = TextTokenizer.maximumTermLength
            while end > 0 && term[end] & 0xC0 == 0x80 { end -= 1 }
            term.removeSubrange(end...)
        }
    }
}
