import BenchmarkModels
import Cairn
import Foundation
import GRDB

// W0: opening a store and reading one author by its unique id, again and again. Cairn checks every page of a store
// up to 64 MiB before the storage engine maps it (Docs/Reliability.md), and the catalogue and free
// list of a larger one; this is what that costs next to GRDB opening its database.

extension CairnSystem {
    /// Opens the store `times` times, each time reading one author by its unique id, and closes
    /// it again.
    static func openAndReadOne(in directory: URL, times: Int) throws -> Int {
        let data = directory.appendingPathComponent("Bench.store/data.mdb").path
        let size = (try? FileManager.default.attributesOfItem(atPath: data)[.size] as? Int) ?? 0
        FileHandle.standardError.write(Data("W0: the Cairn store's data file is \(size >> 20) MiB\n".utf8))
        for time in 0..<times {
            let context = ModelContext(try container(directory))
            let id = Int64(time)
            let found = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.id == id }))
            guard found.count == 1 else { fatalError("W0: author \(id) is missing") }
        }
        return times
    }
}

extension GRDBSystem {
    /// Opens the database `times` times, each time reading one author by its primary key, and
    /// closes it again.
    static func openAndReadOne(in directory: URL, wal: Bool, times: Int) throws -> Int {
        var configuration = Configuration()
        if wal { configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") } }
        for time in 0..<times {
            // The table exists (W5 made it): open without the harness's CREATE TABLE write.
            let queue = try DatabaseQueue(
                path: directory.appendingPathComponent("bench.sqlite").path, configuration: configuration)
            let found = try queue.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM author WHERE id = ?", arguments: [Int64(time)])
            }
            guard found != nil else { fatalError("W0: author \(time) is missing") }
        }
        return times
    }
}
