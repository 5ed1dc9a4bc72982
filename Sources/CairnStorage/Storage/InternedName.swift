import Foundation

/// A name kept once per process and passed around as a number: table names, entity names, store
/// identifiers.
///
/// Values that carry names (``Table``, `PersistentIdentifier`) are copied at every step of a
/// save or a fetch. A `String` in them made each copy a retain and each drop a release, atomic
/// operations that cost about 5 ns each on the machine the benchmarks run on: more than the rest
/// of the copy. An interned name is a 32-bit number, so those values are plain bytes; the text is
/// looked up only when something prints or encodes it.
///
/// Names are never forgotten. A process interns the names of the entities and tables of the
/// stores it opens and the identifiers of those stores: a bounded set, since reopening a store
/// interns the same ones again.
///
/// ```swift
/// let name = InternedName("e/Author")
/// name == InternedName("e/Author")   // true, by number
/// print(name)                        // "e/Author"
/// ```
package struct InternedName: Hashable, Sendable, CustomStringConvertible {
    /// The name's number in the process's registry.
    package let number: UInt32

    /// Interns `text`: the same text always gives the same number. Takes a lock and hashes the
    /// text: intern names once, when a store or schema is opened, not per row.
    ///
    /// ```swift
    /// let entity = InternedName("Author")
    /// ```
    package init(_ text: String) { number = Registry.shared.number(for: text) }

    /// The name with this number, which ``number`` gave: for values that keep the number in
    /// fewer bits of their own (`PersistentIdentifier`).
    ///
    /// ```swift
    /// let same = InternedName(number: name.number)
    /// ```
    package init(number: UInt32) { self.number = number }

    /// The numbers names take are below this: values that keep a name's number may use the bits
    /// above it.
    package static let numberLimit: UInt32 = 1 << 31

    /// The name's text.
    ///
    /// ```swift
    /// InternedName("Author").text   // "Author"
    /// ```
    package var text: String { Registry.shared.text(of: number) }

    /// The name's text.
    ///
    /// ```swift
    /// print(InternedName("Author"))   // "Author"
    /// ```
    package var description: String { text }

    /// The process's names, by number and by text.
    private final class Registry: @unchecked Sendable {
        static let shared = Registry()
        private let lock = NSLock()
        private var texts: [String] = []
        private var numbers: [String: UInt32] = [:]

        func number(for text: String) -> UInt32 {
            lock.lock()
            defer { lock.unlock() }
            if let number = numbers[text] { return number }
            precondition(texts.count < InternedName.numberLimit, "InternedName: more names than a number can hold")
            let number = UInt32(texts.count)
            texts.append(text)
            numbers[text] = number
            return number
        }

        func text(of number: UInt32) -> String {
            lock.lock()
            defer { lock.unlock() }
            return texts[Int(number)]
        }
    }
}

extension InternedName: ExpressibleByStringLiteral {
    /// Interns a literal.
    ///
    /// ```swift
    /// let entity: InternedName = "Author"
    /// ```
    package init(stringLiteral text: String) { self.init(text) }
}
