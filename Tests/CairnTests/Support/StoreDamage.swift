import Foundation

/// One seeded way of damaging a copy of a store's two files: the data file's bytes, the lock
/// file's bytes, or the files themselves. The same seed always makes the same damage.
struct StoreDamage {
    /// LMDB's meta page layout (page header included): the fields the meta edits change.
    enum Meta {
        static let mapSize = 32, freeRoot = 40 + 40, mainRoot = 88 + 40, lastPage = 136, transactionID = 144
    }

    static let pageSize = 4096

    var data: [UInt8]?
    var lock: [UInt8]?
    /// `lock.mdb` is replaced by a directory.
    var lockIsDirectory = false
    /// What was done, for a report.
    var description = ""

    /// Damages the template's files as `seed` says. `usedPages` is how many pages the newest
    /// commit uses; most damage lands there, where it matters.
    init(seed: UInt64, data template: [UInt8], lock templateLock: [UInt8], usedPages: Int) {
        var random = SeededGenerator(seed: seed)
        var bytes = template
        lock = templateLock
        let pages = max(2, bytes.count / Self.pageSize)
        let used = min(pages, max(2, usedPages))
        func page() -> Int {
            random.next() % 4 == 0
                ? Int.random(in: 0..<pages, using: &random) : Int.random(in: 0..<used, using: &random)
        }
        func pageRange(_ page: Int) -> Range<Int> {
            page * Self.pageSize..<min(bytes.count, (page + 1) * Self.pageSize)
        }
        func set(_ value: UInt64, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
        }
        func get(_ offset: Int) -> UInt64 { bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) } }

        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            let length =
                random.next() % 2 == 0
                ? Int.random(in: 0...pages, using: &random) * Self.pageSize
                : Int.random(in: 0..<bytes.count, using: &random)
            bytes = Array(bytes.prefix(length))
            description = "truncated to \(length) bytes"
        case 1:
            let target = page()
            for offset in pageRange(target) { bytes[offset] = UInt8.random(in: 0...255, using: &random) }
            description = "page \(target) filled with garbage"
        case 2:
            let flips = Int.random(in: 1...8, using: &random)
            var offsets: [Int] = []
            for _ in 0..<flips {
                let offset = Int.random(in: pageRange(page()), using: &random)
                bytes[offset] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                offsets.append(offset)
            }
            description = "bits flipped at bytes \(offsets)"
        case 3:
            let start = Int.random(in: pageRange(page()), using: &random)
            let length = min(bytes.count - start, Int.random(in: 1...64, using: &random))
            let value = UInt8.random(in: 0...255, using: &random)
            bytes.replaceSubrange(start..<start + length, with: repeatElement(value, count: length))
            description = "\(length) bytes at \(start) set to \(value)"
        case 4:
            let first = page(), second = page()
            let a = pageRange(first), b = pageRange(second)
            if a.count == b.count && first != second {
                let saved = Array(bytes[a])
                bytes.replaceSubrange(a, with: bytes[b])
                bytes.replaceSubrange(b, with: saved)
            }
            description = "pages \(first) and \(second) swapped"
        case 5:
            let first = page(), count = Int.random(in: 1...3, using: &random)
            for target in first..<min(pages, first + count) {
                bytes.replaceSubrange(pageRange(target), with: repeatElement(0, count: pageRange(target).count))
            }
            description = "pages \(first)..<\(min(pages, first + count)) zeroed"
        case 6, 7:
            let meta = Int.random(in: 0...1, using: &random)
            let fields = [
                ("transaction id", Meta.transactionID), ("main root", Meta.mainRoot), ("free root", Meta.freeRoot),
                ("last page", Meta.lastPage), ("map size", Meta.mapSize),
            ]
            let (name, field) = fields[Int.random(in: 0..<fields.count, using: &random)]
            let offset = meta * Self.pageSize + field
            let old = get(offset)
            let candidates: [UInt64] = [
                old &+ 1, old &- 1, 0, UInt64.max, random.next(), UInt64(Int.random(in: 0..<pages, using: &random)),
                UInt64(pages + Int.random(in: 0...8, using: &random)), old &* 2, old / 2,
            ]
            let value = candidates[Int.random(in: 0..<candidates.count, using: &random)]
            set(value, at: offset)
            description = "meta \(meta) \(name) \(old) → \(value)"
        case 8:
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                lock = (0..<templateLock.count).map { _ in UInt8.random(in: 0...255, using: &random) }
                description = "lock file filled with garbage"
            case 1:
                lock = []
                description = "lock file empty"
            case 2:
                let length = Int.random(in: 1..<max(2, templateLock.count), using: &random)
                lock = Array(templateLock.prefix(length))
                description = "lock file truncated to \(length) bytes"
            case 3:
                lock = nil
                lockIsDirectory = true
                description = "lock file replaced by a directory"
            default:
                lock = nil
                description = "lock file missing"
            }
        default:
            data = nil
            description = "data file missing, lock file left"
            return
        }
        data = bytes
    }

    /// Writes the damaged files as a store directory at `path`.
    func write(to path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if let data { try Data(data).write(to: URL(fileURLWithPath: path + "/data.mdb")) }
        if let lock { try Data(lock).write(to: URL(fileURLWithPath: path + "/lock.mdb")) }
        if lockIsDirectory {
            try FileManager.default.createDirectory(atPath: path + "/lock.mdb", withIntermediateDirectories: false)
        }
    }
}
