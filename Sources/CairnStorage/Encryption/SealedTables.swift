/// The tables whose values an encrypted store seals, by name: exact names and name prefixes.
///
/// Only tables without duplicate keys can be sealed: a duplicate table orders its values, and
/// sealed values have no order.
///
/// ```swift
/// let sealed = SealedTables(prefixes: ["e/", "x/"], names: ["h", "meta"])
/// sealed.contains("e/Author")   // true
/// ```
package struct SealedTables: Sendable, Hashable {
    /// Name prefixes: every table whose name starts with one is sealed.
    package var prefixes: [String]
    /// Exact names.
    package var names: Set<String>

    /// A set of sealed tables; none by default.
    ///
    /// ```swift
    /// let sealed = SealedTables(prefixes: ["e/"])
    /// ```
    package init(prefixes: [String] = [], names: Set<String> = []) {
        self.prefixes = prefixes
        self.names = names
    }

    /// Whether the table called `name` is sealed.
    ///
    /// ```swift
    /// if sealed.contains(table.name) { … }
    /// ```
    package func contains(_ name: String) -> Bool {
        names.contains(name) || prefixes.contains { name.hasPrefix($0) }
    }
}
