import Foundation
import Testing

@testable import Cairn

/// Table names and meta keys are spelled in `StoreLayout` alone: the app's store, the inspector,
/// the verifier and migrations derive them from it, so they cannot drift apart.
@Suite struct StoreLayoutTests {
    @Test func namesAndKeysFollowTheLayout() {
        #expect(StoreLayout.recordsTable(of: "Book") == "e/Book")
        #expect(StoreLayout.externalsTable(of: "Book") == "x/Book")
        #expect(StoreLayout.edgeTable(of: "Author", "books") == "r/Author/books")
        #expect(StoreLayout.keyTable(.index, of: "Book", ["year", "title"]) == "i/Book/year,title")
        #expect(StoreLayout.keyTable(.unique, of: "Book", ["isbn"]) == "u/Book/isbn")
        #expect(StoreLayout.entityDescriptionKey("Book") == Array("entity:Book".utf8))
        #expect(StoreLayout.rowCounterKey("Book") == Array("rowid:Book".utf8))
        let names = ["u/Book/isbn", "i/Book/year,title", "i/Book/year", "i/Bookshelf/x", "e/Book"]
        #expect(
            StoreLayout.keyTables(.index, of: "Book", among: names).map(\.attributes) == [["year"], ["year", "title"]])
        #expect(StoreLayout.isRecordsTable("e/Book") && !StoreLayout.isRecordsTable("x/Book"))
    }

    /// No other file of the library spells a table name or a meta key.
    @Test func noOtherSourceFileSpellsATableNameOrAMetaKey() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Cairn")
        let patterns = [
            #""[ehrxiu]/"#, #""meta""#, #""h""#, #"Array\("(format|store|schema\.version|history\.floor)"\.utf8\)"#,
            #""(entity|rowid):"#, #"(prefix|kind): "[ui]""#,
        ].map { try! Regex($0) }
        var spelled: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let file as URL in files where file.pathExtension == "swift" && file.lastPathComponent != "StoreLayout.swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if patterns.contains(where: { code.contains($0) }) {
                    spelled.append("\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        #expect(spelled.isEmpty, "\(spelled.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: sources.appendingPathComponent("Encoding/StoreLayout.swift").path))
    }
}
