import CairnSyncProtocol
import Foundation

extension SyncApplier {
    /// A new row: a model made from the incoming attributes (those missing take their default
    /// or empty values), inserted; its links are set once every row has its model.
    func insert(
        _ change: RowChange, id: SyncID, entity: SyncSchema.Entity, state: inout EntryLayout.SyncRowState
    ) throws {
        let tables = entity.tables
        let record = try incomingRecord(change, entity: entity)
        let constants = (try? context.rows.constants(in: record, tables: tables)) ?? RowLoader.placeholderConstants(tables)
        let model = tables.modelType.init(_$modelState: _ModelState(), _$constants: constants)
        for synced in entity.attributes.values where synced.attribute.constant == nil {
            guard let access = synced.attribute.access else { continue }
            do { try access.decode(model, synced.tag, record) } catch { _ = access.fillPlaceholder(model) }
        }
        // A new model's relationships hold nothing until its links are set.
        for relationship in tables.entity.relationships { relationship.access.load(model, []) }
        context.insert(model)
        insertedRows[model.persistentModelID] = id
        models[id] = model
        for (name, field) in change.fields { take(field, named: name, of: id, entity: entity, into: &state) }
        report.rowsInserted += 1
    }

    /// A row that lives here: each field whose incoming stamp is newer than the one known here is set.
    func update(
        _ model: any PersistentModel, with change: RowChange, id: SyncID, entity: SyncSchema.Entity,
        state: inout EntryLayout.SyncRowState
    ) throws {
        var changed = false
        for (name, field) in change.fields {
            if let local = state.stamp(of: name), !(local < field.stamp) {
                // An older write than the one here: kept out, unless a resolver keeps it.
                guard local != field.stamp else { continue }
                report.conflicts += 1
                guard let synced = entity.attributes[name],
                    try keepsEarlier(field, over: local, of: synced, state: state)
                else { continue }
                if try set(synced, of: model, to: field.value) { changed = true }
                state.setStamp(SyncStamp(clock: clock.tick(wallMilliseconds: Self.now()), replica: replica), for: name)
                rewritten[id, default: []].insert(name)
                continue
            }
            if let local = state.stamp(of: name), local.replica == replica { report.conflicts += 1 }
            if let synced = entity.attributes[name], try set(synced, of: model, to: field.value) { changed = true }
            take(field, named: name, of: id, entity: entity, into: &state)
        }
        if changed {
            context.modelDidChange(model)
            report.rowsChanged += 1
        }
    }

    /// Sets attribute `synced` of `model` to an incoming value as a setter would; `false` when
    /// the value is not one of this attribute.
    private func set(_ synced: SyncSchema.Attribute, of model: any PersistentModel, to value: FieldValue) throws -> Bool {
        guard synced.attribute.constant == nil, let access = synced.attribute.access, let index = synced.attribute.index,
            let payload = try? Self.payload(value, for: synced)
        else { return false }
        let record = try Self.record(holding: payload, tag: synced.tag)
        access.unload(model)
        do { try access.decode(model, synced.tag, record) } catch { _ = access.fillPlaceholder(model) }
        model._$state.markChanged(index)
        context.attributeDidChange(model, index)
        return true
    }

    /// Whether the entity's resolver keeps `incoming`, a write older than the one stored here
    /// (stamped `local`), over it; `false` without a resolver or when both wrote the same value.
    private func keepsEarlier(
        _ incoming: FieldChange, over local: SyncStamp, of synced: SyncSchema.Attribute,
        state: EntryLayout.SyncRowState
    ) throws -> Bool {
        guard let resolve = resolvers.conflicts[state.entity], let row = state.row, let access = synced.attribute.access,
            let tables = schema.entities[state.entity]?.tables.concrete(forRow: row),
            let record = try context.rows.record(row: row, tables: tables),
            case .some(let payload) = try? Self.payload(incoming.value, for: synced)
        else { return false }
        let stored = try store.read { txn in
            try synced.storedRecord(row: row, record: record, tables: tables, txn) ?? Self.record(holding: nil, tag: synced.tag)
        }
        guard payload != stored.payload(tag: synced.tag) else { return false }
        let conflict = SyncConflict(
            entityName: state.entity, fieldName: synced.attribute.name,
            earlierDate: Self.date(of: incoming.stamp), laterDate: Self.date(of: local),
            earlierValue: try access.value(tag: synced.tag, in: Self.record(holding: payload, tag: synced.tag)),
            laterValue: try access.value(tag: synced.tag, in: stored))
        return resolve(conflict) == .keepEarlier
    }

    /// A record holding one field, `payload` under `tag` (no field for `nil`).
    static func record(holding payload: FieldPayload?, tag: UInt32) throws -> RecordReader {
        var writer = RecordWriter()
        if let payload { writer.write(payload: payload, tag: tag) }
        return try RecordReader(writer.finished())
    }

    static func now() -> UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }

    static func date(of stamp: SyncStamp) -> Date { Date(timeIntervalSince1970: Double(stamp.milliseconds) / 1000) }

    /// Records an incoming field's stamp; a relationship is queued to be set, a field this
    /// schema does not have (or of another type) is kept to be passed on.
    private func take(
        _ field: FieldChange, named name: String, of id: SyncID, entity: SyncSchema.Entity,
        into state: inout EntryLayout.SyncRowState
    ) {
        if let relationship = entity.relationships[name] {
            links.append((id, relationship, field))
        } else if entity.orders[name] != nil {
            state.orders[name] = field
            reorders[id, default: []].insert(name)
        } else if entity.attributes[name].map({ (try? Self.payload(field.value, for: $0)) == nil }) ?? true {
            if state.kept[name].map({ $0.stamp < field.stamp }) ?? true { state.kept[name] = field }
            return
        }
        state.kept[name] = nil
        state.setStamp(field.stamp, for: name)
    }

    /// The record field an incoming attribute value holds: `.some(nil)` for `nil`; `nil` when
    /// the value is not one of this attribute (another stored type, a reference, damaged bytes).
    static func payload(_ value: FieldValue, for attribute: SyncSchema.Attribute) throws -> FieldPayload?? {
        switch value {
        case .null: return .some(nil)
        case .value(let type, let data):
            guard type == attribute.typeName,
                let payload = try? RecordReader(Array(data)).payload(tag: 1)
            else { return nil }
            return .some(payload)
        // A sealed value reaches the applier opened (the engine opens it); one that did not is kept, unread.
        case .reference, .references, .sealed: return nil
        }
    }

    /// Queues again the links of rows that waited for rows not here before this apply.
    func retryUnresolved() {
        for owner in waiting {
            let id = canonical[owner] ?? owner
            guard var state = states[id], state.deleted == nil, let entity = schema.entities[state.entity] else { continue }
            for (name, field) in state.kept {
                guard let relationship = entity.relationships[name] else { continue }
                links.append((id, relationship, field))
                if state.stamp(of: name).map({ $0 < field.stamp }) ?? true { state.setStamp(field.stamp, for: name) }
            }
            states[id] = state
        }
        waiting = []
    }

    /// Sets every queued link: each relationship to the models of its targets, as the app's
    /// setter would (so inverses follow). A target not here yet leaves the value waiting, kept
    /// in the row's state; a deleted one is left out.
    func setLinks() throws {
        for (owner, relationship, field) in links {
            guard var state = states[owner], state.deleted == nil, let entity = schema.entities[state.entity],
                let model = models[owner] ?? model(of: owner, state: state, entity: entity)
            else { continue }
            var targets: [any PersistentModel] = []
            var missing = false
            let inverse = entity.tables.inverses[relationship.index]?.inverse.originalName
            for target in Self.targets(of: field.value) {
                let id = canonical[target] ?? target
                guard let targetState = states[id] else {
                    missing = true
                    continue
                }
                guard targetState.deleted == nil, let targetEntity = schema.entities[targetState.entity],
                    let targetModel = models[id] ?? self.model(of: id, state: targetState, entity: targetEntity)
                else { continue }
                targets.append(targetModel)
                // The target's list gains a member: it is put in order once every link is set.
                if let inverse, targetEntity.orders[inverse] != nil { reorders[id, default: []].insert(inverse) }
            }
            if missing {
                state.kept[relationship.originalName] = field
                waiting.insert(owner)
            } else {
                state.kept[relationship.originalName] = nil
            }
            states[owner] = state
            touched.insert(owner)
            linked.append((owner, relationship))
            relationship.access.set(model, relationship.isToOneRelationship ? Array(targets.prefix(1)) : targets)
        }
        links = []
    }
}
