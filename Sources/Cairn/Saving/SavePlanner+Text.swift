import CairnStorage

extension SavePlan {
    /// One full-text index's changes in a save: its texts tokenized and gathered by term
    /// (``TextIndexChanges``), whose rows are positions in ``documents``.
    struct TextChanges {
        let index: Store.EntityTables.TextIndex
        var changes = TextIndexChanges()
        /// The rows the changes name, by position.
        var documents: [RowReference] = []

        init(index: Store.EntityTables.TextIndex) { self.index = index }

        mutating func remove(_ row: RowReference, text: String?) {
            guard let text, !text.isEmpty else { return }
            changes.remove(row: UInt64(documents.count), text: text)
            documents.append(row)
        }

        mutating func add(_ row: RowReference, text: String?) {
            guard let text, !text.isEmpty else { return }
            changes.add(row: UInt64(documents.count), text: text)
            documents.append(row)
        }
    }
}

extension SavePlanner {
    /// The full-text changes of a save, one per index it reaches: the texts of deleted rows
    /// removed, those of new rows added, and a changed text's old postings replaced by its new
    /// ones (old texts read from the stored records, as index keys are).
    func planTexts(
        inserted: InsertedModels, changed: [any PersistentModel], deleted: [any PersistentModel],
        takeovers: [UInt64?]
    ) throws -> [SavePlan.TextChanges] {
        var planned: [ObjectIdentifier: SavePlan.TextChanges] = [:]
        func changes(
            _ index: Store.EntityTables.TextIndex, _ body: (inout SavePlan.TextChanges) throws -> Void
        ) rethrows {
            try body(&planned[ObjectIdentifier(index), default: SavePlan.TextChanges(index: index)])
        }
        try store.read { txn in
            for model in deleted {
                let tables = store.tables(of: model)
                let row = model.persistentModelID.rowID!
                guard !tables.keys.texts.isEmpty, let stored = try rows.storedRecord(row: row, tables: tables, in: txn)
                else { continue }
                for index in tables.keys.texts {
                    try changes(index) { $0.remove(.stored(row), text: try index.text(ofRecord: stored)) }
                }
            }
            for model in changed {
                let tables = store.tables(of: model)
                let touched = tables.keys.texts.filter { model._$state.isChanged($0.propertyIndex) }
                guard !touched.isEmpty, let row = model.persistentModelID.rowID,
                    let stored = try rows.storedRecord(row: row, tables: tables, in: txn)
                else { continue }
                for index in touched {
                    let (old, new) = (try index.text(ofRecord: stored), index.text(of: model))
                    guard old != new else { continue }
                    changes(index) {
                        $0.remove(.stored(row), text: old)
                        $0.add(.stored(row), text: new)
                    }
                }
            }
            for position in 0..<inserted.count where !inserted.tables[position].keys.texts.isEmpty {
                let (model, tables) = (inserted.models[position], inserted.tables[position])
                let takenOver =
                    takeovers.isEmpty
                    ? nil : try takeovers[position].flatMap { try rows.storedRecord(row: $0, tables: tables, in: txn) }
                for index in tables.keys.texts {
                    let new = index.text(of: model)
                    if let takenOver, let row = takeovers[position] {
                        let old = try index.text(ofRecord: takenOver)
                        guard old != new else { continue }
                        changes(index) { $0.remove(.stored(row), text: old) }
                    }
                    changes(index) { $0.add(.new(position), text: new) }
                }
            }
        }
        return Array(planned.values)
    }
}
