import Foundation

/// One stored row as `cairn dump` writes it: its identifier, its attributes' values and its
/// relationships as the identifiers of their targets.
package struct InspectedRow: Sendable {
    package var id: PersistentIdentifier
    /// Every attribute of the entity's description, in its order, with `nil` for an absent value.
    package var values: [(name: String, value: StoredValue?)]
    /// Every relationship, in the description's order, with its targets in their stored order.
    package var relationships: [(name: String, isToMany: Bool, targets: [PersistentIdentifier])]
}

extension StoreInspector {
    /// The attribute and relationship names of `entity`'s rows, in the order ``rows(of:where:_:)``
    /// gives them.
    ///
    /// - Throws: `StorageError` `.notFound` when the store has no such entity.
    package func columns(of entity: String) throws -> (attributes: [String], relationships: [String]) {
        let description = try requireEntity(entity)
        return (description.attributes.map(\.name), description.relationships.map(\.name))
    }

    /// Calls `body` with each row of `entity` and of the entities that inherit from it, in row
    /// order, read in one read transaction (one snapshot); rows are read and handed over one at a
    /// time, so memory stays flat however many there are. A row that cannot be read is handed to
    /// `damaged` instead, with the reason, and the rest go on.
    ///
    /// ```swift
    /// try inspector.rows(of: "Book") { row in print(row.id); return true } damaged: { id, error in print(id, error) }
    /// ```
    /// - Parameters:
    ///   - entity: The entity's name.
    ///   - filter: Only rows whose attribute `name`'s value, as text, is `value` (`null` for absent).
    ///   - progress: Told the number of rows read so far, now and then.
    ///   - body: Called with each row; returns `false` to stop.
    ///   - damaged: Called with the identifier of each row that cannot be read, and why.
    /// - Throws: `StorageError` `.notFound` for an entity the store does not describe or an
    ///   attribute it does not have; what reading the store throws; what `body` throws.
    /// - Complexity: O(*n*) in the rows of the entity's table, plus a lookup per row and relationship.
    package func rows(
        of entity: String, where filter: (name: String, value: String)? = nil, progress: ((Int) -> Void)? = nil,
        _ body: (InspectedRow) throws -> Bool, damaged: (String, String) -> Void
    ) throws {
        let description = try requireEntity(entity)
        if let filter, !description.attributes.contains(where: { $0.name == filter.name }) {
            throw StorageError(
                code: .notFound,
                message: "\(entity) has no attribute named '\(filter.name)'. Its attributes: "
                    + description.attributes.map(\.name).joined(separator: ", ") + ".",
                path: path)
        }
        let records = try recordsTable(of: entity)
        let classes = Set(catalog.descendants(of: entity).map { catalog.classNumber(of: $0) })
        let externalsName = StoreLayout.externalsTable(of: catalog.root(of: entity))
        let externals = tableNames.contains(externalsName) ? try table(externalsName) : nil
        let edges = try description.relationships.map { relationship in
            (relationship, try catalog.edgeTableName(of: relationship, entity: entity).map { try table($0) })
        }
        var count = 0
        // The span of the map the scan has read since its pages were last given back.
        var lowest: UnsafeRawPointer?
        var highest: UnsafeRawPointer?
        try environment.read { txn in
            // A sealed record that does not authenticate is left out and named, as a damaged one is.
            let unreadable = { (key: UnsafeRawBufferPointer, error: StorageError) -> String in
                guard let row = try? EntryLayout.row(key: key, table: records) else { return "\(records.name) key \(Array(key))" }
                return classes.contains(Store.EntityTables.classNumber(ofRow: row)) ? "\(self.identifier(entity, row))" : ""
            }
            try txn.scan(
                records,
                onUnreadable: { key, error in
                    let name = unreadable(key, error)
                    if !name.isEmpty { damaged(name, error.message) }
                    return true
                }
            ) { key, value in
                count += 1
                // Addresses in the map only: a sealed table's values are opened into memory of
                // this process, which must never be given back; its keys are in the map.
                for bytes in records.isSealed ? [key] : [key, value] {
                    guard let start = bytes.baseAddress else { continue }
                    lowest = min(lowest ?? start, start)
                    highest = max(highest ?? start, start + bytes.count)
                }
                if count & 0xFFF == 0 {
                    progress?(count)
                    // The pages read so far are not needed again: resident memory stays flat.
                    if let lowest, let highest { environment.releaseReadPages(from: lowest, to: highest) }
                    (lowest, highest) = (nil, nil)
                }
                let row: UInt64
                do throws(StorageError) {
                    row = try EntryLayout.row(key: key, table: records)
                } catch {
                    damaged("\(records.name) key \(Array(key))", error.message)
                    return true
                }
                guard classes.contains(Store.EntityTables.classNumber(ofRow: row)) else { return true }
                let id = identifier(entity, row)
                do {
                    let reader = try RecordReader(copying: value, key: key)
                    let values = try attributeValues(
                        of: reader, row: row, attributes: description.attributes, externals: externals, txn)
                    if let filter, let match = values.first(where: { $0.name == filter.name }),
                        match.value?.text ?? "null" != filter.value
                    {
                        return true
                    }
                    let relationships = try relationshipTargets(of: key, edges: edges, txn)
                    return try body(InspectedRow(id: id, values: values, relationships: relationships))
                } catch let error as StorageError {
                    damaged("\(id)", error.message)
                    return true
                }
            }
        }
    }
}

extension StoreInspector {
    /// A row's attribute values as its description names them; an `.externalStorage` value is
    /// read from the external table, under the row and the attribute's tag.
    fileprivate func attributeValues(
        of reader: RecordReader, row: UInt64, attributes: [StoredEntity.StoredAttribute], externals: Table?,
        _ txn: borrowing ReadTransaction
    ) throws -> [(name: String, value: StoredValue?)] {
        var values: [(name: String, value: StoredValue?)] = []
        values.reserveCapacity(attributes.count)
        for attribute in attributes {
            var payload = reader.payload(tag: attribute.tag)
            if payload == nil, let externals {
                let externalKey = EntryLayout.externalKey(row: row, tag: attribute.tag)
                let stored = try txn.withValue(for: externalKey, in: externals) {
                    try RecordReader(copying: $0, key: externalKey)
                }
                payload = stored?.payload(tag: attribute.tag)
            }
            values.append((attribute.name, try payload.map { try StoredValue(field: $0, type: attribute.type) }))
        }
        return values
    }

    /// The targets of each relationship of the row under `key`, read from its edge table (none
    /// when the table is missing).
    fileprivate func relationshipTargets(
        of key: UnsafeRawBufferPointer, edges: [(StoredEntity.StoredRelationship, Table?)],
        _ txn: borrowing ReadTransaction
    ) throws -> [(name: String, isToMany: Bool, targets: [PersistentIdentifier])] {
        var relationships: [(name: String, isToMany: Bool, targets: [PersistentIdentifier])] = []
        let ownerKey = Array(key)
        for (relationship, table) in edges {
            var targets: [PersistentIdentifier] = []
            if let table {
                try txn.forEachDuplicate(of: ownerKey, in: table) { edge in
                    let target = try EntryLayout.edge(value: edge, ownerKey: key, table: table).target
                    targets.append(identifier(relationship.destination, target))
                    return true
                }
            }
            relationships.append((relationship.name, relationship.isToMany, targets))
        }
        return relationships
    }
}

extension StoredValue {
    /// The value as one line of text: numbers as Swift prints them, dates in ISO 8601 with
    /// fractional seconds (UTC), data in base64, containers as JSON.
    ///
    /// ```swift
    /// StoredValue.integer(42).text   // "42"
    /// ```
    package var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .unsigned(let value): String(value)
        case .double(let value): value.isFinite ? "\(value)" : (value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf"))
        case .decimal(let value): "\(value)"
        case .string(let value), .url(let value): value
        case .date(let value): value.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .uuid(let value): value.uuidString
        case .bytes(let value): value.base64EncodedString()
        case .object, .array: json
        }
    }

    /// The value as JSON: strings quoted and escaped, numbers bare (`nan` and infinities as
    /// strings, which JSON has no numbers for), data in base64 strings, dates as ISO 8601 strings.
    ///
    /// ```swift
    /// StoredValue.string("a\"b").json   // "\"a\\\"b\""
    /// ```
    package var json: String {
        switch self {
        case .null: "null"
        case .bool, .integer, .unsigned, .decimal: text
        case .double(let value): value.isFinite ? text : Self.quoted(text)
        case .string, .url, .date, .uuid, .bytes: Self.quoted(text)
        case .object(let entries):
            "{" + entries.map { Self.quoted($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        case .array(let values): "[" + values.map(\.json).joined(separator: ",") + "]"
        }
    }

    /// `text` as a JSON string literal.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
