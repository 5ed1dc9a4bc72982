import CairnStorage
import Foundation
import Logging

/// Builds the vector indexes a schema adds to entities that already have rows
/// (``Store/EntityTables/KeyTables/unfilledVectors``), as a container opens: every stored row's
/// vector is read from its record, with no model made, and linked into the graph in one write
/// transaction. Progress goes to the log (`cairn`, level `info`), a line per tenth of the rows
/// linked, since a large store takes a while (the graph is built as saves build it).
///
/// ```swift
/// try VectorIndexFiller(store: store).fill()
/// ```
struct VectorIndexFiller {
    let store: Store

    func fill() throws {
        for tables in store.entities.values where !tables.keys.unfilledVectors.isEmpty {
            // An inherited index is filled once, by the entity that declares it (its rows include
            // those of the entities that inherit from it).
            for index in tables.keys.unfilledVectors
            where index.table.name == StoreLayout.vectorTable(of: tables.entityName.text, index.attribute) {
                try fill(index, of: tables)
            }
            tables.keys.unfilledVectors = []
        }
    }

    private func fill(_ index: Store.EntityTables.VectorIndex, of tables: Store.EntityTables) throws {
        let name = "\(tables.entityName.text).\(index.attribute)"
        let started = Date()
        let vectors = try storedVectors(index, of: tables, name: name)
        try store.write(expectedBytes: vectors.count * (index.distance.dimensions * 4 + 400)) { txn in
            var editor = try VectorGraphEditor(table: index.table, distance: index.distance, in: txn)
            for (position, (row, vector)) in vectors.enumerated() {
                try editor.insert(row: row, vector: vector, in: txn)
                if vectors.count >= 10, (position + 1) % (vectors.count / 10) == 0 {
                    cairnLog.info("Building the vector index of \(name): \(position + 1) of \(vectors.count) linked.")
                }
            }
            // Written even for no vectors, so the index counts as built at the next open.
            try editor.write(in: txn)
        }
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        cairnLog.info("Built the vector index of \(name) from \(vectors.count) vectors in \(seconds) s.")
    }

    /// Every stored row's vector that can be indexed. A record that cannot be read, or a vector
    /// that does not fit the declaration (stored before it was made), is left out and logged,
    /// rather than keep the store from opening.
    private func storedVectors(
        _ index: Store.EntityTables.VectorIndex, of tables: Store.EntityTables, name: String
    ) throws -> [(UInt64, [Float])] {
        var vectors: [(UInt64, [Float])] = []
        var unfit = 0
        try store.read { txn in
            let total = try txn.count(of: tables.layout.records)
            cairnLog.info("Building the vector index of \(name) from \(total) stored rows.")
            try txn.scan(tables.layout.records) { key, value in
                guard let row = try? EntryLayout.row(key: key, table: tables.layout.records), tables.includes(row: row),
                    let record = try? RecordReader(copying: value, key: key),
                    let vector = try? index.vector(ofRecord: record)
                else { return true }
                if index.problem(with: vector) == nil { vectors.append((row, vector)) } else { unfit += 1 }
                return true
            }
        }
        if unfit > 0 {
            cairnLog.warning(
                """
                Left \(unfit) stored vectors of \(name) out of its index: their length is not the one declared, or \
                they hold a number that is not finite. Save them again with a fitting vector to index them.
                """)
        }
        return vectors
    }
}
