import BenchmarkModels
import CLMDBRaw
import Cairn
import Foundation
import GRDB

// W9: a single small save, again and again: one author's score changed and saved, against a bare
// LMDB commit of the same bytes with the same durability (a synced commit): the record, a history
// entry of the size Cairn writes for it, and the commit marker. What an app pays for every small
// edit, where W1–W5 measure throughput.

extension CairnSystem {
    /// Changes one author and saves, `times` times, each save with that one change; returns the
    /// number of saves.
    static func smallSaves(in container: ModelContainer, times: Int) throws -> Int {
        let context = ModelContext(container)
        let id: Int64 = 1
        guard let author = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id })).first
        else { fatalError("W9: author 1 is missing") }
        for time in 0..<times {
            author.score = Double(time)
            try context.save()
        }
        return times
    }
}

extension GRDBFastest {
    /// One cached `UPDATE` of one author's score, in a transaction of its own, `times` times.
    static func smallSaves(in queue: DatabaseQueue, times: Int) throws -> Int {
        for time in 0..<times {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE author SET score = ? WHERE id = ?")
                statement.setUncheckedArguments([Double(time), Int64(1)])
                try statement.execute()
            }
        }
        return times
    }
}

extension RawLMDB {
    /// The size of the history entry Cairn writes for a save of one changed attribute
    /// (`Docs/Benchmarks.md`, "The history's size per save").
    static let historyEntryBytes = 78

    /// What Cairn writes for one changed author, in a synced write transaction of its own, `times`
    /// times: the author's record under its row, a history entry appended under the next counter,
    /// and an 8-byte commit marker in the main table.
    func smallSaves(times: Int) -> Int {
        let written = (0..<times).map { Self.record(AuthorValues(1, version: $0)) }
        let entry = [UInt8](repeating: 0x5A, count: Self.historyEntryBytes)
        let marker = Array("\u{0}cairn.commit".utf8)
        for (time, record) in written.enumerated() {
            var txn: OpaquePointer?
            precondition(mdb_txn_begin(env, nil, 0, &txn) == 0, "mdb_txn_begin")
            put(Self.rowKey(2), record, records, txn)
            put(Self.rowKey(UInt64(time + 1)), entry, history, txn, flags: MDB_APPEND)
            put(marker, Self.rowKey(UInt64(time + 1)), main, txn)
            precondition(mdb_txn_commit(txn) == 0, "mdb_txn_commit")
        }
        return times
    }
}
