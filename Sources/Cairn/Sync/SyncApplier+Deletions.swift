import CairnSyncProtocol
import Foundation

extension SyncApplier {
    /// Whether the entity's deletion resolver keeps `model` (row `id`, stamped in `state`)
    /// against a deletion stamped `gone` that did not see its edits: those stamped later than the
    /// deletion and those made here and not pushed yet. A kept model becomes a new synced row (an
    /// identifier derived from `id` and `gone`, so every replica keeping it makes the same one)
    /// with every field to push; `state` is left to be marked deleted by the caller.
    func keepsEdited(
        _ model: any PersistentModel, of id: SyncID, state: inout EntryLayout.SyncRowState, entity: SyncSchema.Entity,
        against gone: SyncStamp
    ) throws -> Bool {
        guard let resolve = resolvers.deletions[state.entity] else { return false }
        let pending = try store.read { txn in try tables.pendingFields(id, txn) } ?? []
        let unseen = state.stampedFields.filter { name in
            pending.contains(name) || state.stamp(of: name).map { gone < $0 } ?? false
        }
        guard let newest = unseen.compactMap({ state.stamp(of: $0) }).max() else { return false }
        let deletion = SyncDeletion(
            entityName: state.entity, deletedDate: Self.date(of: gone), editedDate: Self.date(of: newest),
            editedFieldNames: Set(unseen.map { Self.schemaName($0, in: entity) }))
        guard resolve(deletion) == .keepEdited else { return false }
        let kept = Self.identifier(keeping: id, deletedAt: gone)
        var keptState = state
        keptState.deleted = nil
        states[kept] = keptState
        touched.insert(kept)
        models[kept] = model
        renamed[id] = kept
        rewritten[kept, default: []].formUnion(entity.fieldNames)
        state.row = nil
        report.conflicts += 1
        return true
    }

    /// The name field `wire` has in this schema.
    private static func schemaName(_ wire: String, in entity: SyncSchema.Entity) -> String {
        entity.attributes[wire]?.attribute.name ?? entity.link(wire)?.name ?? wire
    }

    /// The identifier of a row kept against the deletion of row `id` stamped `gone`: the same on
    /// every replica (a SplitMix64 sequence seeded from both), time-ordered at the deletion.
    static func identifier(keeping id: SyncID, deletedAt gone: SyncStamp) -> SyncID {
        var generator = SplitMix64(seed: id.high ^ id.low.byteSwapped ^ gone.clock ^ gone.replica.high ^ gone.replica.low)
        return SyncID.make(milliseconds: gone.milliseconds, using: &generator)
    }
}
