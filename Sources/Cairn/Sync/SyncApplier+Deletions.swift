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
        canonical[kept] = kept
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
        var generator = DerivedBits(seed: id.high ^ id.low.byteSwapped ^ gone.clock ^ gone.replica.high ^ gone.replica.low)
        return SyncID.make(milliseconds: gone.milliseconds, using: &generator)
    }

    /// Bits derived from a seed (SplitMix64).
    private struct DerivedBits: RandomNumberGenerator {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
