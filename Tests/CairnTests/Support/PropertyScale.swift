import Foundation

/// How many generated cases a property test runs: its default count times `CAIRN_PROPERTY_SCALE`
/// (1 when unset), so heavier runs need no code change.
enum PropertyScale {
    static let factor = max(1, Int(ProcessInfo.processInfo.environment["CAIRN_PROPERTY_SCALE"] ?? "") ?? 1)

    static func count(_ cases: Int) -> Int { cases * factor }
}
