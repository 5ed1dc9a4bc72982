extension Schema {
    /// A schema's semantic version, as in SwiftData.
    ///
    /// ```swift
    /// let version = Schema.Version(1, 2, 0)
    /// print(version)   // "1.2.0"
    /// ```
    public struct Version: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The major version.
        ///
        /// ```swift
        /// Schema.Version(2, 0, 0).major   // 2
        /// ```
        public let major: Int
        /// The minor version.
        ///
        /// ```swift
        /// Schema.Version(2, 1, 0).minor   // 1
        /// ```
        public let minor: Int
        /// The patch version.
        ///
        /// ```swift
        /// Schema.Version(2, 1, 3).patch   // 3
        /// ```
        public let patch: Int

        /// Creates a version.
        ///
        /// ```swift
        /// static var versionIdentifier = Schema.Version(1, 0, 0)
        /// ```
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Orders versions by major, then minor, then patch.
        ///
        /// ```swift
        /// Schema.Version(1, 0, 0) < Schema.Version(1, 1, 0)   // true
        /// ```
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// `major.minor.patch`.
        ///
        /// ```swift
        /// "\(Schema.Version(1, 2, 3))"   // "1.2.3"
        /// ```
        public var description: String { "\(major).\(minor).\(patch)" }
    }
}
