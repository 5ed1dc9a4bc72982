import BenchmarkModels
import Cairn
import Foundation
import GRDB

// W8: the operations of the public Realm-versus-SwiftData suite on its simple objects, each
// measured on its own store: insert n users and save; fetch the users named "Jane" in age order;
// rename them to "Wendy" and save; delete every user and save. Each rate is stored users per
// second (n over the operation's time), so the sizes compare.
//
// Cairn runs the code that suite's SwiftData side runs (a context per operation, `#Predicate`,
// `SortDescriptor`, `delete(model:)`). GRDB runs as a GRDB expert writes for speed (cached
// statements, records decoded by index, one `UPDATE … WHERE` for the rename, one `DELETE`), and
// as its idiomatic `Codable` records.

enum SimpleObjects {
    /// How many of `values` W8's fetch finds.
    static func fetchedCount(_ values: [SimpleUserValues]) -> Int {
        values.lazy.filter { $0.firstName == SimpleUserValues.fetchedName }.count
    }
}

// MARK: - Cairn

extension SimpleObjects {
    static func container(_ directory: URL) throws -> ModelContainer {
        try ModelContainer(
            for: SimpleUser.self,
            configurations: ModelConfiguration(url: directory.appendingPathComponent("Simple.store")))
    }

    static func insert(_ values: [SimpleUserValues], into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        for value in values { context.insert(value.model) }
        try context.save()
        return values.count
    }

    /// The users named "Jane" in age order, in a new context, each one's fields read.
    static func fetch(in container: ModelContainer, stored: Int, expected: Int) throws -> Int {
        let janes = try fetchJanes(ModelContext(container))
        var ages = 0
        for user in janes {
            precondition(user.firstName == SimpleUserValues.fetchedName && !user.surname.isEmpty)
            ages += user.age
            _ = user.id
        }
        precondition(janes.count == expected && ages >= 0, "W8: fetched \(janes.count) of \(expected) users")
        return stored
    }

    /// The users named "Jane", renamed to "Wendy" and saved.
    static func rename(in container: ModelContainer, stored: Int, expected: Int) throws -> Int {
        let context = ModelContext(container)
        let janes = try fetchJanes(context)
        precondition(janes.count == expected, "W8: fetched \(janes.count) of \(expected) users to rename")
        for user in janes { user.firstName = SimpleUserValues.newName }
        try context.save()
        return stored
    }

    /// Every user deleted and the deletion saved.
    static func deleteAll(in container: ModelContainer, stored: Int) throws -> Int {
        let context = ModelContext(container)
        try context.delete(model: SimpleUser.self)
        try context.save()
        let left = try context.fetchCount(FetchDescriptor<SimpleUser>())
        precondition(left == 0, "W8: \(left) users left after deleting all")
        return stored
    }

    private static func fetchJanes(_ context: ModelContext) throws -> [SimpleUser] {
        let name = SimpleUserValues.fetchedName
        return try context.fetch(
            FetchDescriptor<SimpleUser>(predicate: #Predicate { $0.firstName == name }, sortBy: [SortDescriptor(\.age)]))
    }
}

// MARK: - GRDB

/// A simple user as a GRDB expert writes the record: decoded by index, encoded by hand.
struct FastSimpleUserRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "simpleUser"
    var id: UUID
    var firstName: String
    var surname: String
    var age: Int

    init(row: Row) throws {
        id = row[0]
        firstName = row[1]
        surname = row[2]
        age = row[3]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["firstName"] = firstName
        container["surname"] = surname
        container["age"] = age
    }
}

/// A simple user as GRDB's idiomatic `Codable` record.
struct SimpleUserRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "simpleUser"
    var id: UUID
    var firstName: String
    var surname: String
    var age: Int
}

extension SimpleObjects {
    static let insertSQL = "INSERT INTO simpleUser (id, firstName, surname, age) VALUES (?, ?, ?, ?)"
    static let fetchSQL = "SELECT id, firstName, surname, age FROM simpleUser WHERE firstName = ? ORDER BY age"

    /// The database in `directory`, opened and given the table: the same unique key as the Cairn
    /// model, the UUID (stored as GRDB stores a `UUID`: 16 bytes), as the primary key the
    /// idiomatic records update by.
    static func queue(_ directory: URL, wal: Bool) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(
            path: directory.appendingPathComponent("simple.sqlite").path,
            configuration: GRDBSystem.configuration(wal: wal))
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS simpleUser (
                        id BLOB PRIMARY KEY NOT NULL, firstName TEXT NOT NULL, surname TEXT NOT NULL,
                        age INTEGER NOT NULL)
                    """)
        }
        return queue
    }

    /// GRDB at its fastest: one cached INSERT with unchecked arguments, one transaction.
    static func fastestInsert(_ values: [SimpleUserValues], into queue: DatabaseQueue) throws -> Int {
        try queue.write { db in
            let statement = try db.cachedStatement(sql: insertSQL)
            for value in values {
                statement.setUncheckedArguments([value.id, value.firstName, value.surname, value.age])
                try statement.execute()
            }
        }
        return values.count
    }

    /// GRDB at its fastest: a cached query, records decoded by index.
    static func fastestFetch(in queue: DatabaseQueue, stored: Int, expected: Int) throws -> Int {
        let janes = try queue.read { db in
            let statement = try db.cachedStatement(sql: fetchSQL)
            statement.setUncheckedArguments([SimpleUserValues.fetchedName])
            return try FastSimpleUserRecord.fetchAll(statement)
        }
        precondition(janes.count == expected, "W8: GRDB fetched \(janes.count) of \(expected) users")
        return stored
    }

    /// GRDB at its fastest: one `UPDATE … WHERE`.
    static func fastestRename(in queue: DatabaseQueue, stored: Int, expected: Int) throws -> Int {
        let renamed = try queue.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE simpleUser SET firstName = ? WHERE firstName = ?")
            statement.setUncheckedArguments([SimpleUserValues.newName, SimpleUserValues.fetchedName])
            try statement.execute()
            return db.changesCount
        }
        precondition(renamed == expected, "W8: GRDB renamed \(renamed) of \(expected) users")
        return stored
    }

    /// One `DELETE FROM simpleUser` (what GRDB's `deleteAll` runs too).
    static func deleteAll(in queue: DatabaseQueue, stored: Int) throws -> Int {
        try queue.write { db in _ = try SimpleUserRecord.deleteAll(db) }
        return stored
    }

    /// GRDB's idiomatic code: a `Codable` record inserted per user, one transaction.
    static func recordInsert(_ values: [SimpleUserValues], into queue: DatabaseQueue) throws -> Int {
        try queue.write { db in
            for value in values {
                try SimpleUserRecord(id: value.id, firstName: value.firstName, surname: value.surname, age: value.age)
                    .insert(db)
            }
        }
        return values.count
    }

    /// GRDB's idiomatic code: the query interface, `Codable` records.
    static func recordFetch(in queue: DatabaseQueue, stored: Int, expected: Int) throws -> Int {
        let janes = try queue.read { db in try janeRecords(db) }
        precondition(janes.count == expected, "W8: GRDB fetched \(janes.count) of \(expected) users")
        return stored
    }

    /// GRDB's idiomatic code: the records fetched, changed and updated one by one.
    static func recordRename(in queue: DatabaseQueue, stored: Int, expected: Int) throws -> Int {
        let renamed = try queue.write { db in
            let janes = try janeRecords(db)
            for var user in janes {
                user.firstName = SimpleUserValues.newName
                try user.update(db)
            }
            return janes.count
        }
        precondition(renamed == expected, "W8: GRDB renamed \(renamed) of \(expected) users")
        return stored
    }

    private static func janeRecords(_ db: Database) throws -> [SimpleUserRecord] {
        try SimpleUserRecord.filter(Column("firstName") == SimpleUserValues.fetchedName)
            .order(Column("age")).fetchAll(db)
    }
}

// MARK: - Runs

/// W8's runs at `n` users: each operation on each system. The fetch reads a store seeded once;
/// the rename and the delete change their store, so each of their rounds seeds a new one
/// (unmeasured).
func simpleObjectRuns(_ n: Int) -> [Run] {
    let values = (0..<n).map(SimpleUserValues.init)
    let expected = SimpleObjects.fetchedCount(values)
    let cairn = { (name: String) throws -> ModelContainer in
        let container = try SimpleObjects.container(scratchDirectory(name))
        _ = try SimpleObjects.insert(values, into: container)
        return container
    }
    let grdb = { (name: String, wal: Bool, fastest: Bool) throws -> DatabaseQueue in
        let queue = try SimpleObjects.queue(scratchDirectory(name), wal: wal)
        _ = try fastest ? SimpleObjects.fastestInsert(values, into: queue) : SimpleObjects.recordInsert(values, into: queue)
        return queue
    }
    var readOnly: [String: AnyObject] = [:]
    func once<T: AnyObject>(_ name: String, _ make: (String) throws -> T) rethrows -> T {
        if let made = readOnly[name] as? T { return made }
        let made = try make(name)
        readOnly[name] = made
        return made
    }
    let modes: [(name: String, wal: Bool, fastest: Bool)] = [
        ("GRDB fastest (default)", false, true), ("GRDB fastest (WAL, NORMAL)", true, true),
        ("GRDB Codable records (default)", false, false),
    ]
    var runs = [
        Run(workload: "W8 insert", system: "Cairn insert + save (SwiftData)") {
            let container = try SimpleObjects.container(scratchDirectory("w8-cairn-insert"))
            return try measure { try SimpleObjects.insert(values, into: container) }
        },
        Run(workload: "W8 fetch", system: "Cairn fetch sorted (SwiftData)") {
            let container = try once("w8-cairn-fetch", cairn)
            return try measure { try SimpleObjects.fetch(in: container, stored: n, expected: expected) }
        },
        Run(workload: "W8 rename", system: "Cairn fetch, rename, save (SwiftData)") {
            let container = try cairn("w8-cairn-rename")
            return try measure { try SimpleObjects.rename(in: container, stored: n, expected: expected) }
        },
        Run(workload: "W8 delete", system: "Cairn delete(model:) + save (SwiftData)") {
            let container = try cairn("w8-cairn-delete")
            return try measure { try SimpleObjects.deleteAll(in: container, stored: n) }
        },
    ]
    for mode in modes {
        let tag = "w8-\(mode.wal ? "wal" : "default")-\(mode.fastest ? "fast" : "records")"
        let seeded = { (name: String) in try grdb(name, mode.wal, mode.fastest) }
        runs += [
            Run(workload: "W8 insert", system: mode.name) {
                let queue = try SimpleObjects.queue(scratchDirectory(tag + "-insert"), wal: mode.wal)
                return try measure {
                    try mode.fastest
                        ? SimpleObjects.fastestInsert(values, into: queue) : SimpleObjects.recordInsert(values, into: queue)
                }
            },
            Run(workload: "W8 fetch", system: mode.name) {
                let queue = try once(tag + "-fetch", seeded)
                return try measure {
                    try mode.fastest
                        ? SimpleObjects.fastestFetch(in: queue, stored: n, expected: expected)
                        : SimpleObjects.recordFetch(in: queue, stored: n, expected: expected)
                }
            },
            Run(workload: "W8 rename", system: mode.name) {
                let queue = try seeded(tag + "-rename")
                return try measure {
                    try mode.fastest
                        ? SimpleObjects.fastestRename(in: queue, stored: n, expected: expected)
                        : SimpleObjects.recordRename(in: queue, stored: n, expected: expected)
                }
            },
        ]
        // `deleteAll` runs the same `DELETE` for GRDB's fast and idiomatic code.
        if mode.fastest {
            runs.append(
                Run(workload: "W8 delete", system: mode.name) {
                    let queue = try seeded(tag + "-delete")
                    return try measure { try SimpleObjects.deleteAll(in: queue, stored: n) }
                })
        }
    }
    return runs
}
