import CairnStorage

extension SavePlan {
    /// One vector index's changes in a save: the nodes to remove, then the vectors to link in.
    struct VectorChanges {
        let index: Store.EntityTables.VectorIndex
        var removals: [RowReference] = []
        var additions: [(row: RowReference, vector: [Float])] = []

        init(index: Store.EntityTables.VectorIndex) { self.index = index }
    }
}

extension SavePlanner {
    /// The vector changes of a save, one per index it reaches: deleted rows' nodes removed, new
    /// rows' vectors added, and a changed vector's node replaced.
    ///
    /// - Throws: ``SaveError`` `.invalidArgument` when a vector does not fit its declaration
    ///   (another length, or a number that is not finite); nothing is written.
    func planVectors(
        inserted: InsertedModels, changed: [any PersistentModel], deleted: [any PersistentModel],
        takeovers: [UInt64?]
    ) throws -> [SavePlan.VectorChanges] {
        var planned: [ObjectIdentifier: SavePlan.VectorChanges] = [:]
        func changes(_ index: Store.EntityTables.VectorIndex, _ body: (inout SavePlan.VectorChanges) -> Void) {
            body(&planned[ObjectIdentifier(index), default: SavePlan.VectorChanges(index: index)])
        }
        for model in deleted {
            for index in store.tables(of: model).keys.vectors {
                changes(index) { $0.removals.append(.stored(model.persistentModelID.rowID!)) }
            }
        }
        for model in changed {
            guard let row = model.persistentModelID.rowID else { continue }
            for index in store.tables(of: model).keys.vectors where model._$state.isChanged(index.propertyIndex) {
                let vector = try checkedVector(of: model, index)
                changes(index) {
                    $0.removals.append(.stored(row))
                    if let vector { $0.additions.append((.stored(row), vector)) }
                }
            }
        }
        for position in 0..<inserted.count where !inserted.tables[position].keys.vectors.isEmpty {
            for index in inserted.tables[position].keys.vectors {
                let vector = try checkedVector(of: inserted.models[position], index)
                changes(index) {
                    if !takeovers.isEmpty, let row = takeovers[position] { $0.removals.append(.stored(row)) }
                    if let vector { $0.additions.append((.new(position), vector)) }
                }
            }
        }
        return Array(planned.values)
    }

    /// The vector `model` holds for `index`, once it fits the declaration.
    private func checkedVector(
        of model: any PersistentModel, _ index: Store.EntityTables.VectorIndex
    ) throws -> [Float]? {
        guard let vector = index.vector(of: model) else { return nil }
        guard let problem = index.problem(with: vector) else { return vector }
        throw SaveError(
            code: .invalidArgument,
            message: "\(type(of: model)).\(index.attribute) \(problem). Give it a vector of "
                + "\(index.distance.dimensions) finite numbers, or change the .vector declaration (the index is "
                + "built again at the next open).",
            models: [model.persistentModelID])
    }
}
