import Foundation

/// Turns one stored history entry into a ``DefaultHistoryTransaction``: one change per row, of
/// the row's own class, in the order the entry lists them.
///
/// A row inserted in the commit is an insert, a deleted one a delete (with its tombstone), and
/// any other row whose fields or relationships changed an update naming them (an update in an
/// entry of an earlier format, which named no fields, is an update naming none). A row whose
/// only change is an edge of a relationship without an inverse property has nothing to name and
/// is left out, as are rows of entities the schema no longer has.
///
/// ```swift
/// let transaction = HistoryChanges(store: store, commit: 42, entry: entry).transaction()
/// ```
struct HistoryChanges {
    let store: Store
    let commit: UInt64
    let entry: EntryLayout.HistoryEntry

    func transaction() -> DefaultHistoryTransaction {
        var tombstones: [ChangedRow.Key: [UInt8]] = [:]
        for tombstone in entry.tombstones {
            tombstones[ChangedRow.Key(entity: InternedName(tombstone.entity), row: tombstone.row)] = tombstone.record
        }
        let rows = ChangedRow.rows(in: [entry], store: store)
        var changes: [HistoryChange] = []
        changes.reserveCapacity(rows.count)
        let transaction = Int64(truncatingIfNeeded: commit)
        for change in rows where change.inserted || change.deleted || !change.fields.isEmpty || change.updatedUnnamed {
            let made = Self.change(
                change.tables.modelType, change: change, position: Int64(changes.count), transaction: transaction,
                tombstone: tombstones[ChangedRow.Key(entity: change.tables.entityName, row: change.row)], store: store)
            changes.append(made)
        }
        return DefaultHistoryTransaction(
            timestamp: Date(timeIntervalSince1970: Double(entry.timestamp) / 1_000_000), changes: changes,
            token: DefaultHistoryToken(storeIdentifier: store.identifier, transaction: commit),
            storeIdentifier: store.identifier, bundleIdentifier: entry.process?.bundle ?? "",
            processIdentifier: entry.process.map { String($0.identifier) } ?? "", author: entry.author)
    }

    /// The change of `change`'s row as a change of `Model`, its class.
    private static func change<Model: PersistentModel>(
        _: Model.Type, change: ChangedRow, position: Int64, transaction: Int64, tombstone: [UInt8]?, store: Store
    ) -> HistoryChange {
        let id = change.identifier(in: store.internedIdentifier)
        if change.inserted && !change.deleted {
            return .insert(
                DefaultHistoryInsert<Model>(
                    changeIdentifier: position, transactionIdentifier: transaction, changedPersistentIdentifier: id))
        }
        if change.deleted {
            return .delete(
                DefaultHistoryDelete<Model>(
                    changeIdentifier: position, transactionIdentifier: transaction, changedPersistentIdentifier: id,
                    tombstone: HistoryTombstone(values: preservedValues(tombstone, tables: change.tables))))
        }
        let entity = change.tables.entity
        let keyPaths: [any PartialKeyPath<Model> & Sendable] = entity.storedProperties.compactMap { property in
            guard change.fields.contains(property.name) else { return nil }
            let keyPath =
                (property as? Schema.Attribute)?.keyPath ?? (property as? Schema.Relationship)?.keyPath
            return keyPath.flatMap { $0 as? PartialKeyPath<Model> }.map(sendable)
        }
        return .update(
            DefaultHistoryUpdate<Model>(
                changeIdentifier: position, transactionIdentifier: transaction, changedPersistentIdentifier: id,
                updatedAttributes: keyPaths))
    }

    /// The values `record` holds for the entity's `.preserveValueOnDeletion` attributes.
    private static func preservedValues<Model: PersistentModel>(
        _ record: [UInt8]?, tables: Store.EntityTables
    ) -> [(key: PartialKeyPath<Model>, value: any Sendable)] {
        guard let record, let reader = try? RecordReader(record) else { return [] }
        return tables.entity.attributes.compactMap { attribute in
            guard attribute.options.contains(.preserveValueOnDeletion), let tag = tables.codec.tags[attribute.name],
                let access = attribute.access, let keyPath = attribute.keyPath as? PartialKeyPath<Model>,
                let value = try? access.value(tag: tag, in: reader)
            else { return nil }
            return (key: keyPath, value: sendable(value))
        }
    }
}

/// A key path of a model's property as `Sendable`: a key path to a stored property holds no state.
private func sendable<Model>(_ keyPath: PartialKeyPath<Model>) -> any PartialKeyPath<Model> & Sendable {
    // Through `AnyObject`: a cast to a composition with a marker protocol cannot fail and is not
    // checked; one from the key path's own type is refused as always succeeding.
    (keyPath as AnyObject) as! any PartialKeyPath<Model> & Sendable
}

/// An attribute's value as `Sendable`: the value types a record decodes to. `Any` and `any
/// Sendable` are the same existential container (a marker protocol has no witness table), read
/// as the other in place.
private func sendable(_ value: Any) -> any Sendable {
    withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: (any Sendable).self) }
}
