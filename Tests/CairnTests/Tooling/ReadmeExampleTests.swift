import Foundation
import Testing

/// The README's example is the example package's program, word for word: `./Scripts/test` builds
/// and runs that package (it depends on Cairn by path), so the snippet a newcomer copies compiles
/// and runs as shown.
@Suite struct ReadmeExampleTests {
    @Test func theReadmeExampleIsTheExamplePackagesProgram() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker =
            "<!-- example: Examples/QuickStart/Sources/QuickStart/main.swift (kept equal by a test) -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "the README marks its example").upperBound
        let end = try #require(readme.range(of: "```\n", range: start..<readme.endIndex)).lowerBound
        let program = try String(
            contentsOf: root.appendingPathComponent("Examples/QuickStart/Sources/QuickStart/main.swift"),
            encoding: .utf8)
        #expect(String(readme[start..<end]) == program)
        #expect(program.split(separator: "\n").count <= 25, "a short example")
    }
}
