import Foundation
import Testing

/// The README's first command runs `cairn demo`; this runs the same binary.
@Suite struct DemoTests {
    @Test func theDemoCreatesReopensQueriesAndPrints() throws {
        let directory = TemporaryDirectory()
        let tool = HelperProcess.executableURL.deletingLastPathComponent().appendingPathComponent("cairn")
        let process = Process()
        process.executableURL = tool
        process.arguments = ["demo", directory.child("Demo.store")]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("Saved 3 authors, 5 books, 12 chapters and 3 tags in one transaction."))
        #expect(text.contains("Jane Austen (born 1775): Pride and Prejudice (1813), Emma (1815)"))
        #expect(text.contains("1. Miss Brooke\n  2. Old and Young\n  3. Waiting for Death\n  4. Three Love Problems"))
        #expect(text.contains("2 authors, 3 books, 6 chapters left; the tags stay: classic (3), novel (2), poetry (1)"))
        #expect(FileManager.default.fileExists(atPath: directory.child("Demo.store/data.mdb")))
    }
}
