import CairnStorage
import Foundation
import Logging

/// Builds the full-text indexes a schema adds to entities that already have rows
/// (``Store/EntityTables/KeyTables/unfilledTexts``), as a container opens: every stored row's
/// text is tokenized from its record, with no model made, and the postings are written in one
/// write transaction. Progress goes to the log (`cairn`, level `info`), a line per tenth of the
/// rows read, since a large store takes seconds.
///
/// ```swift
/// try TextIndexFiller(store: store).fill()
/// ```
struct TextIndexFiller {
    let store: Store

    func fill() throws {
        for tables in store.entities.values where !tables.keys.unfilledTexts.isEmpty {
            try fill(tables)
            tables.keys.unfilledTexts = []
        }
    }

    /// Fills `tables`' unfilled full-text tables from every stored row of the entity (and of the
    /// entities that inherit from it).
    private func fill(_ tables: Store.EntityTables) throws {
        // An inherited index is filled once, by the entity that declares it (its rows include
        // those of the entities that inherit from it).
        let indexes = tables.keys.unfilledTexts.filter {
            $0.table.name.hasPrefix(StoreLayout.textTable(of: tables.entityName.text, ""))
        }
        guard !indexes.isEmpty else { return }
        let names = indexes.map { "\(tables.entityName.text).\($0.attribute)" }.joined(separator: ", ")
        var changes = [TextIndexChanges](repeating: TextIndexChanges(), count: indexes.count)
        let started = Date()
        try store.read { txn in
            let total = try txn.count(of: tables.layout.records)
            cairnLog.info("Building the full-text index of \(names) from \(total) stored rows.")
            var read = 0
            try txn.scan(tables.layout.records) { key, value in
                read += 1
                if total >= 10, read % (total / 10) == 0 {
                    cairnLog.info("Building the full-text index of \(names): \(read) of \(total) rows read.")
                }
                guard let row = try? EntryLayout.row(key: key, table: tables.layout.records), tables.includes(row: row),
                    // A record that cannot be read is left out (verify() reports it), rather
                    // than keep the store from opening.
                    let record = try? RecordReader(copying: value, key: key)
                else { return true }
                for (position, index) in indexes.enumerated() {
                    guard let text = try? index.text(ofRecord: record), !text.isEmpty else { continue }
                    changes[position].add(row: row, text: text)
                }
                return true
            }
        }
        try store.write(expectedBytes: changes.reduce(0) { $0 + $1.expectedBytes }) { txn in
            for (index, built) in zip(indexes, changes) {
                try built.write(to: index.table, storedTerm: index.storedTerm, resolve: { $0 }, in: txn)
                // Written even for no text, so the index counts as built at the next open.
                if built.documents == 0 {
                    _ = try txn.put(
                        PostingLayout.statistics(documents: 0, tokens: 0), for: PostingLayout.statisticsKey,
                        in: index.table)
                }
            }
        }
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        cairnLog.info("Built the full-text index of \(names) in \(seconds) s.")
    }
}
