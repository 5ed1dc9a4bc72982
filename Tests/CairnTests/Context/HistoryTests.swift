import Foundation
import Testing

@testable import Cairn

/// The history entry a save writes: every touched row once, sorted by entity, row and kind,
/// and read back as written.
@Suite struct HistoryTests {
    @Test func entriesAreWrittenSortedAndReadBack() throws {
        var random = SeededGenerator(seed: 7)
        var history = History()
        var expected: Set<History.Entry> = []
        for _ in 0..<2_000 {
            let entity = ["Book", "Author", "Caf\u{E9}", "B"][Int(random.next() % 4)]
            let kind = History.Kind(rawValue: UInt8(random.next() % 4))!
            let row = random.next() % 300
            history.record(kind, entity, row)
            expected.insert(History.Entry(kind: kind, entity: entity, row: row))
        }
        let bytes = history.encoded()
        let decoded = try #require(bytes.withUnsafeBytes { History.decode($0) })
        let reference = expected.sorted {
            ($0.entity, $0.row, $0.kind.rawValue) < ($1.entity, $1.row, $1.kind.rawValue)
        }
        #expect(decoded == reference)
        #expect(bytes.count == reference.reduce(0) { $0 + 10 + $1.entity.utf8.count })
    }
}
