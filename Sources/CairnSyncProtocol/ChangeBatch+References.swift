extension ChangeBatch {
    /// The rows the batch points at (its references) that it does not itself hold.
    ///
    /// ```swift
    /// let outside = batch.referencedElsewhere   // each must be a row of the zone already
    /// ```
    public var referencedElsewhere: Set<SyncID> {
        let own = Set(rows.map(\.id))
        var found = Set<SyncID>()
        for row in rows {
            for change in row.fields.values {
                switch change.value {
                case .reference(let target): if !own.contains(target) { found.insert(target) }
                case .references(let targets): found.formUnion(targets.lazy.filter { !own.contains($0) })
                // A sealed value's targets are the replicas' to read, not the server's.
                case .null, .value, .sealed: break
                }
            }
        }
        return found
    }

    /// The rows a server looks up to check the batch against its zone: those it names and those
    /// it points at.
    ///
    /// ```swift
    /// let found = try await database.rows(batch.rowsToLookUp, zone: zone)
    /// ```
    public var rowsToLookUp: Set<SyncID> { Set(rows.map(\.id)).union(referencedElsewhere) }

    /// Checks the batch against the zone it is pushed to: every row it names that the zone
    /// holds is of the same entity, and no row it names or points at belongs to another zone. A
    /// row it points at may not have reached the zone yet (a replica pushes in batches; the
    /// receivers link it when it arrives). `inZone` gives the entity of each of ``rowsToLookUp``
    /// the zone holds; `elsewhere`, those another zone holds.
    ///
    /// ```swift
    /// try batch.checkAgainstZone(inZone: entities, elsewhere: foreign)
    /// ```
    /// - Throws: ``SyncProtocolError`` `.badRequest` naming the first row at fault.
    public func checkAgainstZone(inZone: [SyncID: String], elsewhere: Set<SyncID>) throws(SyncProtocolError) {
        for row in rows {
            if let stored = inZone[row.id], stored != row.entity {
                throw SyncProtocolError(
                    code: .badRequest,
                    message: "The change batch names row \(row.id) as a \(row.entity), but the zone holds it as a "
                        + "\(stored). A row keeps its entity.")
            }
        }
        if let foreign = elsewhere.sorted().first {
            throw SyncProtocolError(
                code: .badRequest,
                message: "The change batch names or points at row \(foreign), which belongs to another zone. A zone's "
                    + "rows point only at rows of the same zone.")
        }
    }
}
