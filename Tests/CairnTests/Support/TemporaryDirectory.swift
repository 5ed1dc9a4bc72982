import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is dropped.
///
/// One per test, so suites run in parallel without sharing stores.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = #function) {
        let base = FileManager.default.temporaryDirectory.path
        let name = "cairn-tests-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        path = base + "/" + name
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory (nothing is created there).
    func child(_ name: String) -> String { path + "/" + name }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
