import Foundation

/// What of a fetch's predicate is left to check on each candidate once the access path has found
/// it: the `&&`-joined parts the path does not guarantee.
///
/// A stored row that the access path read, and whose model holds the stored values, satisfies
/// every covered part by construction (an exact key or identifier lookup), so only the other
/// parts are evaluated on it. Any other model — inserted, changed, or met outside the path — is
/// checked on every part, a covered one the cheap way the plan gives: a captured collection in
/// `contains` was hashed once by the planner, so the check is one set lookup, never a scan of
/// the collection per candidate.
///
/// The parts the plan's ``RecordTests`` check were checked on the stored record of every row the
/// path read (``CandidateReader``), so they count as covered for such a row too.
struct PredicateResidual {
    let predicate: FetchRequest.Predicate?
    let plan: PredicatePlanner.Plan
    /// Whether nothing is left to evaluate on a row the access path vouches for.
    let isEmptyForVouchedRows: Bool

    init(predicate: FetchRequest.Predicate?, plan: PredicatePlanner.Plan) {
        (self.predicate, self.plan) = (predicate, plan)
        let recordTested = plan.recordTests?.parts.count ?? 0
        isEmptyForVouchedRows = predicate == nil || plan.covered.count + recordTested == plan.parts.count
    }

    /// Whether `model`, of `tables`' entity, satisfies the predicate. (The tables are the
    /// caller's: a copy kept here was one more reference to retain and release per fetch.)
    ///
    /// - Parameter vouched: The model was read through the access path and holds its stored values.
    /// - Throws: ``FetchError`` when the predicate throws on the model.
    func matches(_ model: any PersistentModel, tables: Store.EntityTables, vouched: Bool) throws -> Bool {
        guard let predicate, !(vouched && isEmptyForVouchedRows) else { return true }
        let recordTested = vouched ? plan.recordTests?.parts : nil
        for position in plan.parts.indices {
            if recordTested?.contains(position) == true { continue }
            if let check = plan.covered[position] {
                if vouched { continue }
                switch check {
                case .identifierIn(let identifiers):
                    if !identifiers.contains(model.persistentModelID) { return false }
                    continue
                case .keyIn(let keyed, let keys) where Self.isLoaded(keyed, in: model, tables: tables):
                    if !keys.contains(keyed.key(of: model)) { return false }
                    continue
                case .keyIn, .evaluate:
                    break
                }
            }
            if try !predicate.evaluate(plan.parts[position].expression, model) { return false }
        }
        return true
    }

    /// The models of `models` that satisfy the predicate (see ``matches(_:tables:vouched:)``).
    ///
    /// - Parameter noneChanged: The caller found that no model of `models` has unsaved changes
    ///   (while they were in the cache); `false` when it does not know.
    func filter(
        _ models: [any PersistentModel], tables: Store.EntityTables, vouched: Bool, noneChanged: Bool = false
    ) throws -> [any PersistentModel] {
        guard predicate != nil else { return models }
        // Rows the access path vouches for match unless their model has unsaved changes: keep
        // the array as it is then, rather than filtering it into a new one.
        if vouched && isEmptyForVouchedRows, noneChanged || !models.contains(where: { $0.hasChanges }) {
            return models
        }
        return try models.filter { try matches($0, tables: tables, vouched: vouched && !$0.hasChanges) }
    }

    /// Whether every attribute of a key is loaded in `model`, so its key can be built without a read.
    private static func isLoaded(
        _ keyed: Store.EntityTables.UniqueConstraint, in model: any PersistentModel, tables: Store.EntityTables
    ) -> Bool {
        keyed.names.allSatisfy { tables.entity.attributesByName[$0]?.access?.isLoaded(model) ?? false }
    }
}
