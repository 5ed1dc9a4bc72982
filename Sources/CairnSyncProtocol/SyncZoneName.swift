/// What a zone's name may be: 1 to 64 ASCII letters, digits, `.`, `_` and `-` (it travels in
/// URLs and keys rows on the server).
///
/// ```swift
/// SyncZoneName.isValid("family-photos")   // true
/// SyncZoneName.isValid("../etc")          // false
/// ```
public enum SyncZoneName {
    /// Whether `name` is a valid zone name.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".")
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }

    /// The message for an invalid zone name.
    public static func rule(_ name: String) -> String {
        "The zone name '\(name.prefix(80))' is not valid: use 1 to 64 letters, digits, '.', '_' and '-', not starting with '.'."
    }
}
