import BenchmarkModels
import CLMDBRaw
import Cairn
import Foundation
import GRDB

// W9: a single small save, again and again: one author's score changed and saved, against a bare
// LMDB commit of one record of the same size with the same durability (a synced commit). What an
// app pays for every small edit, where W1–W5 measure throughput.

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
    /// One put of an author's record (its row's, as Cairn's), in a synced write transaction of its
    /// own, `times` times.
    func smallSaves(times: Int) -> Int {
        let written = (0..<times).map { Self.record(AuthorValues(1, version: $0)) }
        for record in written {
            var txn: OpaquePointer?
            precondition(mdb_txn_begin(env, nil, 0, &txn) == 0, "mdb_txn_begin")
            put(Self.rowKey(2), record, records, txn)
            precondition(mdb_txn_commit(txn) == 0, "mdb_txn_commit")
        }
        return times
    }
}
