import Foundation
import Testing

/// The folders of `Sources/Cairn` depend downward only (Docs/Design.md draws the layers): a type
/// declared in a folder of a higher layer is not named by a file of a lower one. The check reads
/// the sources: every top-level type declaration, then every capitalized name each file uses
/// outside comments and string literals.
@Suite struct LayerDependencyTests {
    /// Each folder's layer; a folder may use types of its own layer and those below. The store
    /// and its change log know no model context; the context runtime (the public container and
    /// context, loading, fetching, saving, freshness, migration, verification) knows nothing of
    /// the public history, live queries, model actors or sync built on it; the tools sit on top.
    static let layers: [String: Int] = [
        "Encoding": 0,
        "Schema": 1, "Values": 1, "ModelRuntime": 1,
        "Store": 2, "ChangeLog": 2,
        "Container": 3, "Context": 3, "Loading": 3, "Fetching": 3, "Aggregating": 3, "Searching": 3, "Saving": 3, "Freshness": 3,
        "Migration": 3, "Verification": 3,
        "History": 4, "LiveQueries": 4, "Concurrency": 4, "Sync": 4,
        "Inspection": 5, "Macros": 5,
    ]

    /// Uses still pointing up, each to be removed, not added to.
    static let known: Set<String> = []

    @Test func noFolderNamesATypeOfAHigherLayer() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Cairn")
        let files = try swiftFiles(under: sources)
        #expect(files.count > 100)
        let folders = Set(files.map(\.folder))
        #expect(folders.subtracting(Self.layers.keys).isEmpty, "every folder has a layer: \(folders)")
        var declared: [String: String] = [:]
        let declaration = try Regex(
            #"(?m)^(?:(?:public|package|internal|private|fileprivate|final|open|@\w+(?:\([^)]*\))?)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)"#)
        for file in files {
            for match in file.text.matches(of: declaration) {
                if let name = match.output[1].substring, declared[String(name)] == nil {
                    declared[String(name)] = file.folder
                }
            }
        }
        var found: Set<String> = []
        // Simple word boundaries: Unicode's keep `Owner.isOnMain` one word.
        let word = try Regex(#"\b[A-Z]\w+\b"#).wordBoundaryKind(.simple)
        for file in files {
            let code = Self.code(of: file.text)
            for name in Set(code.matches(of: word).map { String(code[$0.range]) }) {
                guard let owner = declared[name], owner != file.folder,
                    Self.layers[owner, default: 0] > Self.layers[file.folder, default: 0]
                else { continue }
                found.insert("\(file.folder)/\(file.name): \(name)")
            }
        }
        #expect(found.subtracting(Self.known).isEmpty, "uses of a higher layer: \(found.subtracting(Self.known).sorted())")
        #expect(Self.known.subtracting(found).isEmpty, "gone, remove from the list: \(Self.known.subtracting(found).sorted())")
    }

    private struct SourceFile {
        let folder: String
        let name: String
        let text: String
    }

    private func swiftFiles(under root: URL) throws -> [SourceFile] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var files: [SourceFile] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let relative = url.path.dropFirst(root.path.count + 1).split(separator: "/")
            guard relative.count >= 2 else { continue }
            files.append(
                SourceFile(
                    folder: String(relative[0]), name: relative.dropFirst().joined(separator: "/"),
                    text: try String(contentsOf: url, encoding: .utf8)))
        }
        return files
    }

    /// The source without comments and string literals, line by line (a rough cut: enough for
    /// names).
    private static func code(of text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var kept = ""
            var inString = false
            var previous: Character = " "
            for character in line {
                if !inString && character == "/" && previous == "/" {
                    kept.removeLast()
                    break
                }
                if character == "\"" { inString.toggle() } else if !inString { kept.append(character) }
                previous = character
            }
            return kept
        }.joined(separator: "\n")
    }
}
