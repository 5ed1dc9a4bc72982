import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

/// Damaged, truncated and empty data files are refused with typed errors before LMDB maps them,
/// and the test process survives every case.
@Suite struct DamagedFileTests {
    typealias Offset = DataFileValidator.Offset

    /// A closed store with several tables, deletions (so the free-page tree is in use) and a few
    /// dozen commits, plus what it holds.
    struct Template {
        let directory = TemporaryDirectory("DamagedFileTemplate")
        let bytes: [UInt8]
        let contents: [String: [[UInt8]]]
        /// What the store held before its last commit: what a recovery to the previous commit reads.
        let previousContents: [String: [[UInt8]]]
        let newestMeta: Int
        let pagesNeeded: Int

        init() throws {
            let path = directory.child("store")
            do {
                let environment = try LMDBEnvironment.create(StorageConfiguration(path: path))
                let plain = try environment.openTable("a", create: true)!
                let duplicates = try environment.openTable("b", flags: .duplicateSort, create: true)!
                for batch in 0..<20 {
                    try environment.write { txn in
                        for n in batch * 100..<(batch + 1) * 100 {
                            try txn.put([UInt8](repeating: UInt8(n % 251), count: 60), for: key(n), in: plain)
                            try txn.put(key(n), for: [UInt8(n % 13)], in: duplicates)
                        }
                    }
                }
                previousContents = try Self.read(path).contents
                try environment.write { txn in
                    for n in stride(from: 0, to: 2000, by: 3) { try txn.delete(key(n), in: plain) }
                }
            }
            // The environment is closed here: its last reference is gone.
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
            contents = try Self.read(path).contents
            let page = DataFileBytes(storage: bytes)
            let id0 = page.uint64(at: Offset.transactionID), id1 = page.uint64(at: 4096 + Offset.transactionID)
            newestMeta = id1 > id0 ? 1 : 0
            pagesNeeded = Int(page.uint64(at: newestMeta * 4096 + Offset.lastPage)) + 1
        }

        /// Every table's entries, as "key=value" byte strings, and the recovery opening reported.
        static func read(_ path: String) throws -> Opened {
            let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
            var contents: [String: [[UInt8]]] = [:]
            for name in try environment.tableNames() {
                let table = try environment.openTable(
                    name, flags: try TableCatalog(environment: environment).storedFlags(of: name))!
                try environment.read { txn in
                    try txn.scan(table) { key, value in
                        contents[name, default: []].append(Array(key) + [0x3D] + Array(value))
                        return true
                    }
                }
            }
            return Opened(contents: contents, recovery: environment.recovery)
        }

        /// Writes `damaged` as the data file of a new store directory and tries to open it.
        func open(_ damaged: [UInt8], case label: String) -> Result<Opened, any Error> {
            let path = directory.child("case-\(UUID().uuidString)")
            try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: path) }
            _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: Data(damaged))
            return Result { try Self.read(path) }
        }
    }

    /// What a store opened with.
    struct Opened {
        let contents: [String: [[UInt8]]]
        let recovery: StoreRecovery?
    }

    static func summary(_ result: Result<Opened, any Error>) -> String {
        switch result {
        case .success(let opened):
            "opened with \(opened.contents.values.map(\.count).reduce(0, +)) entries"
                + (opened.recovery.map { ", recovered: \($0)" } ?? "")
        case .failure(let error): "\(error)"
        }
    }

    static func isTypedRefusal(_ result: Result<Opened, any Error>) -> Bool {
        guard case .failure(let error) = result, let storage = error as? StorageError else { return false }
        return storage.code == .damaged || storage.code == .versionMismatch
    }

    /// A damaged file is refused with a typed error, or opens with exactly what it held: its last
    /// commit, or, when opening reports that it skipped (or may have skipped) the damaged last
    /// commit, the one before. Opening never says nothing was lost when the last commit is gone.
    static func isRefusedOrRead(_ result: Result<Opened, any Error>, from template: Template) -> Bool {
        switch result {
        case .failure: return isTypedRefusal(result)
        case .success(let opened):
            if let recovery = opened.recovery, recovery.skippedTransaction != nil {
                // A certain loss must be real; a possible one (a page that cannot tell which
                // commit it held) may have cost the newest commit or nothing.
                return opened.contents == template.previousContents
                    || !recovery.lossIsCertain && opened.contents == template.contents
            }
            return opened.contents == template.contents
        }
    }

    @Test func emptyAndTruncatedFilesAreRefusedOrRecovered() throws {
        let template = try Template()
        #expect(template.bytes.count >= template.pagesNeeded * 4096)
        var random = SeededGenerator()
        var lengths = [0, 1, 511, 512, 4095, 4096, 8191, 8192, template.pagesNeeded * 4096 - 1]
        lengths += (1..<template.pagesNeeded).map { $0 * 4096 }.shuffled(using: &random).prefix(30)
        lengths += (0..<60).map { _ in Int.random(in: 1..<template.pagesNeeded * 4096, using: &random) }
        for length in lengths {
            let result = template.open(Array(template.bytes.prefix(length)), case: "truncated to \(length)")
            #expect(
                Self.isRefusedOrRead(result, from: template),
                "truncated to \(length) bytes (lengths from seed \(random.seed)): \(Self.summary(result))")
            if length == 0, case .failure(let error as StorageError) = result {
                #expect(error.message.contains("empty"), "an empty file says so: \(error.message)")
            }
        }
        #expect(lengths.count >= 99)
    }

    @Test func damagedMetaFieldsAreRefusedOrRecovered() throws {
        let template = try Template()
        var cases: [(String, (inout [UInt8]) -> Void)] = []
        func set<T: FixedWidthInteger>(_ value: T, at offset: Int) -> (inout [UInt8]) -> Void {
            { bytes in
                withUnsafeBytes(of: value.littleEndian) {
                    bytes.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0)
                }
            }
        }
        let filePages = UInt64(template.bytes.count / 4096)
        for meta in [0, 1] {
            let base = meta * 4096
            let name = "meta \(meta)"
            cases += [
                ("\(name) page number", set(UInt64(7), at: base + Offset.pageNumber)),
                ("\(name) page flags", set(UInt16(0x02), at: base + Offset.flags)),
                ("\(name) magic", set(UInt32(0xDEAD_BEEF), at: base + Offset.magic)),
                ("\(name) version", set(UInt32(2), at: base + Offset.version)),
                ("\(name) fixed address", set(UInt64(0x7000_0000), at: base + Offset.address)),
                ("\(name) map size too small", set(UInt64(8192), at: base + Offset.mapSize)),
                ("\(name) page size 0", set(UInt32(0), at: base + Offset.freeDB)),
                ("\(name) page size 3000", set(UInt32(3000), at: base + Offset.freeDB)),
                ("\(name) page size 1 MiB", set(UInt32(1 << 20), at: base + Offset.freeDB)),
                ("\(name) free tree flags", set(UInt16(0), at: base + Offset.freeDB + 4)),
                ("\(name) main tree flags", set(UInt16(0x04), at: base + Offset.mainDB + 4)),
                ("\(name) main root past the end", set(filePages + 5, at: base + Offset.mainDB + 40)),
                ("\(name) main root on a meta page", set(UInt64(1), at: base + Offset.mainDB + 40)),
                ("\(name) main depth 0", set(UInt16(0), at: base + Offset.mainDB + 6)),
                ("\(name) main depth 40", set(UInt16(40), at: base + Offset.mainDB + 6)),
                ("\(name) free root past the end", set(filePages + 9, at: base + Offset.freeDB + 40)),
                ("\(name) last page 0", set(UInt64(0), at: base + Offset.lastPage)),
                (
                    "\(name) transaction id +2",
                    { bytes in
                        let id = DataFileBytes(storage: bytes).uint64(at: base + Offset.transactionID)
                        set(id + 2, at: base + Offset.transactionID)(&bytes)
                    }
                ),
                (
                    // The newer page's id lowered into the one below the older page's (41 read as
                    // 39 beside 40): a pair LMDB accepts, naming the older commit as the newest.
                    "\(name) transaction id -2",
                    { bytes in
                        let id = DataFileBytes(storage: bytes).uint64(at: base + Offset.transactionID)
                        set(id &- 2, at: base + Offset.transactionID)(&bytes)
                    }
                ),
                (
                    "\(name) transaction id high bit",
                    set(UInt64(1) << 40 | UInt64(meta), at: base + Offset.transactionID)
                ),
                (
                    "\(name) older id equal to newer",
                    { bytes in
                        let other = (1 - meta) * 4096 + Offset.transactionID
                        set(DataFileBytes(storage: bytes).uint64(at: other), at: base + Offset.transactionID)(
                            &bytes)
                    }
                ),
                ("\(name) trailing byte", set(UInt8(1), at: base + 300)),
                ("\(name) last byte of page", set(UInt8(0x80), at: base + 4095)),
            ]
        }
        // A map size that is no page multiple, or a last page past the end of the file, is not
        // damage: LMDB writes both (see StorageReviewRegressionTests).
        // The newest meta page's roots must name real roots: another in-bounds page is damage.
        let newest = template.newestMeta * 4096
        let mainRoot = DataFileBytes(storage: template.bytes).uint64(at: newest + Offset.mainDB + 40)
        for other in [mainRoot - 1, mainRoot + 1, 2] where other >= 2 && other < filePages && other != mainRoot {
            cases.append(("newest main root moved to page \(other)", set(other, at: newest + Offset.mainDB + 40)))
        }
        for (label, damage) in cases {
            var bytes = template.bytes
            damage(&bytes)
            #expect(bytes != template.bytes, "\(label) changes the file")
            let result = template.open(bytes, case: label)
            #expect(Self.isRefusedOrRead(result, from: template), "\(label): \(Self.summary(result))")
        }
        #expect(cases.count >= 46)
    }

    /// Random damage anywhere in the two meta pages, each case drawn from its own seed (printed
    /// on failure; `CAIRN_META_DAMAGE_SEED` replays one): the store is refused with a typed error,
    /// or opens with exactly its last commit, or with the commit before when it says it skipped
    /// the last. Damage to the meta page LMDB does not select, in bytes LMDB does not read, is
    /// harmless. Never a crash, never other contents.
    @Test func randomMetaDamageIsRefusedRecoveredOrHarmless() throws {
        let template = try Template()
        let seeds: [UInt64] =
            if let replay = ProcessInfo.processInfo.environment["CAIRN_META_DAMAGE_SEED"].flatMap(UInt64.init) {
                [replay]
            } else {
                (0..<150).map { _ in UInt64.random(in: 0...UInt64.max) }
            }
        var outcomes: [String: Int] = [:]
        for seed in seeds {
            var random = SeededGenerator(seed: seed)
            var bytes = template.bytes
            let offset = Int.random(in: 0..<2 * 4096, using: &random)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
            let result = template.open(bytes, case: "byte \(offset)")
            #expect(
                Self.isRefusedOrRead(result, from: template),
                "seed \(seed) (replay with CAIRN_META_DAMAGE_SEED=\(seed)), byte \(offset): \(Self.summary(result))")
            switch result {
            case .failure: outcomes["refused", default: 0] += 1
            case .success(let opened) where opened.recovery != nil: outcomes["recovered", default: 0] += 1
            case .success: outcomes["read", default: 0] += 1
            }
        }
        #expect(outcomes.values.reduce(0, +) == seeds.count, "\(outcomes)")
    }

    /// Recovery rewrites a meta page, so a read-only open of a store whose last commit is damaged
    /// is refused with a message saying how to recover it, and the file is left as it was; a
    /// writable open then recovers, and the store takes new commits.
    @Test func recoveryNeedsAWritableOpenAndThenWritesOnNormally() throws {
        let template = try Template()
        var bytes = template.bytes
        let newest = template.newestMeta * 4096
        // The newest meta page's main tree root moved to the free-page tree's root: a sound page
        // of another tree, caught by the walk and the commit marker.
        let freeRoot = DataFileBytes(storage: bytes).uint64(at: newest + Offset.freeDB + 40)
        withUnsafeBytes(of: freeRoot.littleEndian) {
            bytes.replaceSubrange(newest + Offset.mainDB + 40..<newest + Offset.mainDB + 48, with: $0)
        }
        let path = template.directory.child("read-only-recovery")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: Data(bytes))
        var readOnly = StorageConfiguration(path: path)
        readOnly.isReadOnly = true
        #expect {
            try LMDBEnvironment.open(readOnly)
        } throws: { error in
            guard let error = error as? StorageError, error.code == .damaged else { return false }
            return error.message.contains("writable")
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))) == bytes, "left as it was")

        do {
            let environment = try LMDBEnvironment.open(StorageConfiguration(path: path))
            let recovery = try #require(environment.recovery)
            #expect(recovery.skippedTransaction != nil)
            let table = try #require(try environment.openTable("a"))
            try environment.write { txn in try txn.put([7], for: [0xFE], in: table) }
        }
        // The next commit overwrote the retired meta page: the store opens as it is, no recovery.
        let reopened = try Template.read(path)
        #expect(reopened.recovery == nil)
        #expect(reopened.contents["a"]?.contains([0xFE, 0x3D, 7]) == true)
        let entries = reopened.contents.values.map(\.count).reduce(0, +)
        let before = template.previousContents.values.map(\.count).reduce(0, +)
        #expect(entries == before + 1, "the commit before the damaged one, and the new entry")
    }

    @Test func anEmptyDataFileIsNeverTreatedAsANewStore() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("store")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: Data())
        #expect { try LMDBEnvironment.openOrCreate(StorageConfiguration(path: path)) } throws: {
            ($0 as? StorageError)?.code == .damaged
        }
        let size = try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as! Int
        #expect(size == 0, "the empty file was left as it was")
    }
}
