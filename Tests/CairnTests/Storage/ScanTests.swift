import Testing

@testable import Cairn

/// Range and prefix scans, in both directions, checked against a sorted array of the same entries.
@Suite struct ScanTests {
    /// Keys of 1–3 bytes from a small alphabet, so bounds often hit stored keys and prefixes.
    static func randomKey(_ random: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in [0x00, 0x01, 0x7F, 0xFF].randomElement(using: &random)! }
    }

    struct Entry: Equatable, CustomStringConvertible {
        let key: [UInt8], value: [UInt8]
        var description: String { "\(key)=\(value)" }
    }

    static func reference(_ entries: [Entry], _ range: KeyRange, _ direction: ScanDirection) -> [Entry] {
        func below(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }
        let inside = entries.filter { entry in
            let lowerOK =
                switch range.lower {
                case nil: true
                case .inclusive(let bound): !below(entry.key, bound)
                case .exclusive(let bound): below(bound, entry.key)
                }
            let upperOK =
                switch range.upper {
                case nil: true
                case .inclusive(let bound): !below(bound, entry.key)
                case .exclusive(let bound): below(entry.key, bound)
                }
            return lowerOK && upperOK
        }
        return direction == .forward ? inside : inside.reversed()
    }

    static func randomBound(_ random: inout some RandomNumberGenerator) -> KeyRange.Bound? {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: nil
        case 1: .inclusive(randomKey(&random))
        default: .exclusive(randomKey(&random))
        }
    }

    @Test(arguments: [TableFlags(), .duplicateSort])
    func rangeScansMatchASortedReference(flags: TableFlags) throws {
        var random = SeededGenerator()
        let store = try TemporaryStore()
        let table = try store.table("s", flags: flags)
        var stored: [[UInt8]: Set<[UInt8]>] = [:]
        try store.environment.write { txn throws in
            for _ in 0..<60 {
                let key = Self.randomKey(&random)
                let value = flags.isEmpty ? [UInt8.random(in: 0...255, using: &random)] : Self.randomKey(&random)
                try txn.put(value, for: key, in: table)
                if flags.isEmpty { stored[key] = [value] } else { stored[key, default: []].insert(value) }
            }
        }
        let entries = stored.keys.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { key in
            stored[key]!.sorted { $0.lexicographicallyPrecedes($1) }.map { Entry(key: key, value: $0) }
        }
        try store.environment.read { txn throws in
            for _ in 0..<400 {
                let range = KeyRange(from: Self.randomBound(&random), to: Self.randomBound(&random))
                for direction in [ScanDirection.forward, .backward] {
                    var seen: [Entry] = []
                    try txn.scan(table, range, direction: direction) { key, value in
                        seen.append(Entry(key: Array(key), value: Array(value)))
                        return true
                    }
                    #expect(
                        seen == Self.reference(entries, range, direction), "seed \(random.seed): \(range) \(direction)")
                }
            }
            for _ in 0..<100 {
                let prefix = Self.randomKey(&random)
                var seen: [Entry] = []
                try txn.scan(table, .prefix(prefix), direction: .backward) { key, value in
                    seen.append(Entry(key: Array(key), value: Array(value)))
                    return true
                }
                #expect(
                    seen == entries.filter { $0.key.starts(with: prefix) }.reversed(),
                    "seed \(random.seed): prefix \(prefix)")
            }
        }
    }

    @Test func aScanStopsWhenItsClosureReturnsFalse() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in for n in 0..<100 { try txn.put([], for: key(n), in: table) } }
        var visited: [Int] = []
        try store.environment.read { txn throws in
            try txn.scan(table, KeyRange(from: .exclusive(key(10))), direction: .forward) { key, _ in
                visited.append(number(key))
                return visited.count < 3
            }
        }
        #expect(visited == [11, 12, 13])
    }

    @Test func prefixSuccessorSkipsTrailingFF() {
        #expect(KeyRange.successor(of: [1, 2, 0xFF]) == [1, 3])
        #expect(KeyRange.successor(of: [0xFF, 0xFF]) == nil)
        #expect(KeyRange.successor(of: []) == nil)
    }

    @Test func cursorsWalkBothWaysAndSeek() throws {
        let store = try TemporaryStore()
        let table = try store.table()
        try store.environment.write { txn throws in
            for n in stride(from: 0, to: 50, by: 5) { try txn.put([], for: key(n), in: table) }
        }
        try store.environment.read { txn throws in
            try txn.withCursor(on: table) { cursor throws in
                #expect(try cursor.last() && number(cursor.current.key) == 45)
                #expect(try cursor.previous() && number(cursor.current.key) == 40)
                #expect(try cursor.seek(atLeast: key(12)) && number(cursor.current.key) == 15)
                #expect(try !cursor.seek(exactly: key(12)))
                #expect(try cursor.seek(exactly: key(20)) && number(cursor.current.key) == 20)
                #expect(try cursor.first() && number(cursor.current.key) == 0)
                #expect(try !cursor.previous())
                #expect(try !cursor.seek(atLeast: key(46)))
            }
        }
    }
}
