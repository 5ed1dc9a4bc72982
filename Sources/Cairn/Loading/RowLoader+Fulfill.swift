import Foundation

// What a generated getter's load comes to: the row a fault's property is read from, and the
// failed-load policy (`Docs/Reliability.md`) when it cannot be read. `ModelContext.fulfill`
// calls the two in turn, catching up with other commits in between.

extension RowLoader {
    /// The stored row and entity a fault's property at `index` loads from, or `nil` when its
    /// identifier names no saved row of this store: the property then reads as a placeholder and
    /// ``failures`` records why, for the next save or fetch to throw.
    ///
    /// ```swift
    /// guard let (rowID, tables) = rows.source(of: book, 2) else { return }
    /// ```
    func source(of model: any PersistentModel, _ index: Int) -> (rowID: UInt64, tables: Store.EntityTables)? {
        guard let id = model._$state.persistentIdentifier, let tables = store.entitiesByName[id.entity] else {
            preconditionFailure(
                "\(type(of: model)) property #\(index) was read before it was loaded, and the model has no "
                    + "identifier of this context's schema: create models with their own initialisers")
        }
        guard let rowID = row(of: id) else {
            let reason =
                id.rowID == nil
                ? "the identifier is of a model that was never saved" : "the identifier is of another store"
            let cause = StorageError(code: .notFound, message: "\(id): \(reason).")
            failures.fail(model, index, tables: tables, cause: cause, reason: reason)
            return nil
        }
        return (rowID, tables)
    }

    /// Loads the property at `index` of `model` from its row (see ``loadProperty(_:of:rowID:tables:)``);
    /// what cannot be read becomes a placeholder: a row deleted elsewhere marks the model deleted,
    /// and any other failure (a damaged record or edge list) is recorded in ``failures``.
    ///
    /// ```swift
    /// rows.load(2, of: book, rowID: rowID, tables: tables)
    /// ```
    func load(_ index: Int, of model: any PersistentModel, rowID: UInt64, tables: Store.EntityTables) {
        // A model deleted elsewhere (found now or earlier) reads what it lacks as placeholders.
        if model.isDeleted { return LoadFailures.fillPlaceholder(model, index, tables: tables) }
        do {
            try loadProperty(index, of: model, rowID: rowID, tables: tables)
        } catch let error as StorageError where error.code == .notFound {
            // Its row is gone: another context or process deleted it.
            Refresher.markDeletedElsewhere(model, identity: &identity)
            LoadFailures.fillPlaceholder(model, index, tables: tables)
        } catch {
            // The getter gets a placeholder, and the next save or fetch reports the error.
            failures.fail(model, index, tables: tables, cause: error, reason: ErrorText.describing(error))
        }
    }

    /// A relationship's targets, loaded from the row first when they are not loaded yet (what
    /// cannot be read is handled as in ``load(_:of:rowID:tables:)``).
    ///
    /// ```swift
    /// let books = rows.loadedTargets(booksRelationship, of: author)
    /// ```
    func loadedTargets(_ relationship: Schema.Relationship, of model: any PersistentModel) -> [any PersistentModel] {
        if !relationship.access.isLoaded(model), let (rowID, tables) = source(of: model, relationship.index) {
            load(relationship.index, of: model, rowID: rowID, tables: tables)
        }
        return relationship.access.targets(model)
    }
}
