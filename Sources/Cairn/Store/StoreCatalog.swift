import CairnStorage
import Foundation

/// The store's shape as its stored entity descriptions give it: which table holds each entity's
/// rows, class numbers and descendants in a hierarchy, the unique, index and edge tables, and how
/// a key is made from a record. Derived in one place from the descriptions, for the app's store
/// as it opens (``Store``, after reconciling them with the schema) and for the tools that read a
/// store without the app's models (``StoreInspector``, `cairn verify`).
///
/// ```swift
/// let catalog = StoreCatalog(descriptions: descriptions, tableNames: environment.tableNames)
/// let table = catalog.recordsTableName(of: "Book")   // "e/Book", or its hierarchy root's
/// ```
struct StoreCatalog: Sendable {
    /// Each entity's stored description, by entity name.
    let descriptions: [String: StoredEntity]
    /// The store's tables (edge tables of descriptions recorded before they named them are
    /// found among these).
    let tableNames: Set<String>

    /// The names of the entities the store describes, sorted.
    var entityNames: [String] { descriptions.keys.sorted() }

    /// The entity at the top of `name`'s hierarchy, whose records table holds its rows: itself
    /// for an entity of its own.
    func root(of name: String) -> String {
        if let owner = descriptions.first(where: { $0.value.subentityNames?.contains(name) ?? false })?.key {
            return owner
        }
        return name
    }

    /// The class number of `name`'s rows in its root's records table (0 for the root).
    func classNumber(of name: String) -> Int {
        guard let index = descriptions[root(of: name)]?.subentityNames?.firstIndex(of: name) else { return 0 }
        return index + 1
    }

    /// Whether `name`'s rows share a records table with other entities.
    func sharesTable(_ name: String) -> Bool {
        !(descriptions[root(of: name)]?.subentityNames ?? []).isEmpty
    }

    /// `name` and every entity that inherits from it, directly or not. A hierarchy's root covers
    /// all of its members; a member's descendants are known from the descriptions' superentity
    /// notes (recorded since this version: without them, only the member itself).
    func descendants(of name: String) -> [String] {
        if root(of: name) == name, let members = descriptions[name]?.subentityNames { return [name] + members }
        var result = [name]
        var changed = true
        while changed {
            changed = false
            for (other, description) in descriptions.sorted(by: { $0.key < $1.key })
            where !result.contains(other) && description.superentity.map(result.contains) == true {
                result.append(other)
                changed = true
            }
        }
        return result
    }

    /// Whether the descriptions tell which entities inherit from `name`: an entity of its own, a
    /// hierarchy's root (every member), or a member of a hierarchy whose members' descriptions all
    /// note their superentity (recorded by a writable open of this version or later).
    func knowsDescendants(of name: String) -> Bool {
        let root = root(of: name)
        guard root != name, let members = descriptions[root]?.subentityNames else { return true }
        return members.allSatisfy { descriptions[$0]?.superentity != nil }
    }

    /// The name of the records table of `name`'s rows: its hierarchy root's.
    func recordsTableName(of name: String) -> String { StoreLayout.recordsTable(of: root(of: name)) }

    /// The table holding the edges of `relationship` of `entity`: the one its description names,
    /// or, in descriptions recorded before the name was kept, the entity's own or an ancestor's.
    func edgeTableName(of relationship: StoredEntity.StoredRelationship, entity: String) -> String? {
        if let table = relationship.table { return tableNames.contains(table) ? table : nil }
        var current: String? = entity
        // At most one step per entity: a cycle (a description written wrongly) ends the walk.
        for _ in 0...descriptions.count {
            guard let name = current else { break }
            let table = StoreLayout.edgeTable(of: name, relationship.name)
            if tableNames.contains(table) { return table }
            current = descriptions[name]?.superentity
        }
        return nil
    }

    /// The unique (`u`) or index (`i`) tables of `entity`, with their attributes.
    func keyedTables(
        of entity: String, _ kind: StoreLayout.KeyTableKind
    ) -> [(name: String, attributes: [String], hashed: Set<String>)] {
        StoreLayout.keyTables(kind, of: entity, among: tableNames)
    }

    /// The key of the attributes `names` of `entity` as its records give it, from the description
    /// alone; `nil` when it does not tell enough: a type outside the registry, an optionality not
    /// recorded (descriptions written before it was), or a required attribute that older rows
    /// may lack (whose default only the app's models know), or attributes keyed by hash
    /// (`hashed`) without the store's `hasher`.
    func recordKey(
        _ names: [String], of entity: String, unique: Bool, hashed: Set<String> = [], hasher: KeyHasher? = nil
    ) -> RecordKey? {
        guard let description = descriptions[entity], hashed.isEmpty || hasher != nil else { return nil }
        var parts: [RecordKey.Part] = []
        for name in names {
            guard let attribute = description.attributes.first(where: { $0.name == name }),
                let type = NativeValues.named(attribute.type), let isOptional = attribute.isOptional,
                isOptional || !attribute.mayBeAbsent
            else { return nil }
            parts.append(
                RecordKey.Part(
                    tag: attribute.tag, type: type, isOptional: isOptional, defaultValue: nil,
                    hasher: hashed.contains(name) ? hasher : nil))
        }
        return RecordKey(parts: parts, isUnique: unique)
    }

    /// The entity of row `row` reached through `entity`'s records table: the class its row id
    /// names.
    func concreteEntity(_ entity: String, row: UInt64) -> String {
        let root = root(of: entity)
        let number = Store.EntityTables.classNumber(ofRow: row)
        guard number != 0 else { return descriptions[root]?.subentityNames == nil ? entity : root }
        return descriptions[root]?.subentityNames.flatMap { number <= $0.count ? $0[number - 1] : nil } ?? entity
    }
}
