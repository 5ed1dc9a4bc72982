import CairnStorage
import Foundation
import Testing

@testable import Cairn

// Two versions of one model: in the second, the national ID and the email are sensitive
// (`.allowsCloudEncryption`), and the index on the name is gone.

enum SensitivePatientsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Patient.self] }

    @Model final class Patient {
        #Index<Patient>([\.email], [\.age], [\.email, \.age], [\.name])
        @Attribute(.unique) var nationalID: String
        var email: String
        var name: String
        var age: Int

        init(nationalID: String, email: String, name: String, age: Int) {
            self.nationalID = nationalID
            self.email = email
            self.name = name
            self.age = age
        }
    }
}

enum SensitivePatientsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Patient.self] }

    @Model final class Patient {
        #Index<Patient>([\.email], [\.age], [\.email, \.age])
        @Attribute(.unique, .allowsCloudEncryption) var nationalID: String
        @Attribute(.allowsCloudEncryption) var email: String
        var name: String
        var age: Int

        init(nationalID: String, email: String, name: String, age: Int) {
            self.nationalID = nationalID
            self.email = email
            self.name = name
            self.age = age
        }
    }
}

/// The keys of sensitive attributes in an encrypted store: keyed hashes in their unique and index
/// tables, found by equality and lists, never in clear in the file, and rebuilt whenever their
/// form or the data key changes.
@Suite struct HashedKeyTests {
    typealias Patient = SensitivePatientsV2.Patient
    static let key = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) })
    static let markers = ["NATID-MARKER-81", "EMAIL-MARKER-36"]

    func container(
        _ directory: TemporaryDirectory, _ encryption: ModelConfiguration.Encryption?,
        _ models: [any PersistentModel.Type] = [Patient.self]
    ) throws -> ModelContainer {
        try ModelContainer(
            for: Schema(models),
            configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child("Clinic.store")), encryption: encryption))
    }

    /// Twenty patients; the third has the markers as its national ID and email.
    func insertPatients(_ context: ModelContext) throws {
        for number in 0..<20 {
            let marked = number == 3
            context.insert(
                Patient(
                    nationalID: marked ? Self.markers[0] : "id-\(number)",
                    email: marked ? Self.markers[1] : "p\(number % 5)@example.org", name: "Patient \(number)",
                    age: 20 + number))
        }
        try context.save()
    }

    func markersFound(under path: String) throws -> Set<String> {
        let enumerator = try #require(FileManager.default.enumerator(atPath: path))
        var found = Set<String>()
        for case let name as String in enumerator {
            guard let bytes = FileManager.default.contents(atPath: path + "/" + name) else { continue }
            for marker in Self.markers where bytes.range(of: Data(marker.utf8)) != nil { found.insert(marker) }
        }
        return found
    }

    @Test func sensitiveKeysAreNotInTheFileOfAnEncryptedStore() throws {
        let directory = TemporaryDirectory()
        do {
            let container = try container(directory, .key(Self.key))
            try insertPatients(ModelContext(container))
            let names = Set(container.store.entities["Patient"]!.keys.uniques.map(\.table.name)
                + container.store.entities["Patient"]!.keys.indexes.map(\.table.name))
            #expect(names == ["u/Patient/#nationalID", "i/Patient/#email", "i/Patient/age", "i/Patient/#email,age"])
        }
        #expect(try markersFound(under: directory.path) == [])

        // A plaintext store keys the same attributes by value: the scan finds them there.
        let plain = TemporaryDirectory()
        do {
            let container = try container(plain, nil)
            try insertPatients(ModelContext(container))
            #expect(container.store.entities["Patient"]!.keys.uniques.map(\.table.name) == ["u/Patient/nationalID"])
        }
        #expect(try markersFound(under: plain.path) == Set(Self.markers))
    }

    /// Equalities, lists and uniqueness use the hashed tables; ranges and sorts are done on the
    /// candidates, with the same answers as a plaintext store gives.
    @Test(arguments: [false, true])
    func fetchesAnswerAsInAPlaintextStore(_ encrypted: Bool) throws {
        let directory = TemporaryDirectory()
        let container = try container(directory, encrypted ? .key(Self.key) : nil)
        let context = ModelContext(container)
        try insertPatients(context)
        func names(_ descriptor: FetchDescriptor<Patient>) throws -> [String] {
            try context.fetch(descriptor).map(\.name).sorted()
        }
        let email = "p2@example.org"
        let byEmail = FetchDescriptor<Patient>(predicate: #Predicate { $0.email == email })
        #expect(try names(byEmail) == ["Patient 12", "Patient 17", "Patient 2", "Patient 7"])
        let emailTable = encrypted ? "i/Patient/#email" : "i/Patient/email"
        #expect(try context.explain(byEmail).accessPath == .indexEquality(table: emailTable, attribute: "email"))

        let listed = ["p1@example.org", Self.markers[1]]
        let inList = FetchDescriptor<Patient>(predicate: #Predicate { listed.contains($0.email) })
        #expect(try names(inList) == ["Patient 1", "Patient 11", "Patient 16", "Patient 3", "Patient 6"])
        #expect(try context.explain(inList).accessPath == .keyList(table: emailTable, attribute: "email", count: 2))

        let both = FetchDescriptor<Patient>(predicate: #Predicate { $0.email == email && $0.age > 30 })
        #expect(try names(both) == ["Patient 12", "Patient 17"])
        guard case .compoundIndex(let table, _, _) = try context.explain(both).accessPath else {
            Issue.record("not a compound scan: \(try context.explain(both))")
            return
        }
        #expect(table == (encrypted ? "i/Patient/#email,age" : "i/Patient/email,age"))

        let bound = "p3"
        let range = FetchDescriptor<Patient>(predicate: #Predicate { $0.email >= bound })
        #expect(try names(range).count == 7)
        let rangePlan = try context.explain(range)
        #expect((rangePlan.accessPath == .fullScan) == encrypted)
        #expect(rangePlan.notes.contains { $0.contains("keyed hashes of email") } == encrypted, "\(rangePlan)")

        var sorted = FetchDescriptor<Patient>(sortBy: [SortDescriptor(\.email), SortDescriptor(\.age)])
        sorted.fetchLimit = 3
        #expect(try context.fetch(sorted).map(\.name) == ["Patient 3", "Patient 0", "Patient 5"])
        #expect(try context.explain(sorted).notes.contains { $0.contains("sort by email") } == encrypted)

        let id = Self.markers[0]
        let byID = FetchDescriptor<Patient>(predicate: #Predicate { $0.nationalID == id })
        #expect(try names(byID) == ["Patient 3"])
        #expect(try context.explain(byID).evaluatesPredicate == false)
    }

    /// A second model with a sensitive unique value takes the stored one over (an upsert), as
    /// with a plaintext key; the model-free verifier checks the hashed entries with the key.
    @Test func uniquenessHoldsAndBothVerifiersCheckTheHashes() throws {
        let directory = TemporaryDirectory()
        do {
            let container = try container(directory, .key(Self.key))
            let context = ModelContext(container)
            try insertPatients(context)
            context.insert(Patient(nationalID: Self.markers[0], email: "new@example.org", name: "Renamed", age: 99))
            try context.save()
            let fresh = ModelContext(container)
            #expect(try fresh.fetchCount(FetchDescriptor<Patient>()) == 20)
            let id = Self.markers[0]
            let found = try fresh.fetch(FetchDescriptor<Patient>(predicate: #Predicate { $0.nationalID == id }))
            #expect(found.map(\.name) == ["Renamed"])
            #expect(try container.verify().isClean)
        }
        let inspector = try StoreInspector(path: directory.child("Clinic.store"), encryption: .key(Array(Self.key)))
        let report = try inspector.verify()
        #expect(report.isClean, "\(report)")
        #expect(report.entriesByTable["u/Patient/#nationalID"] == 20)
        // `cairn inspect` says which keys are hashed.
        let patient = try #require(try inspector.summary().entities.first { $0.name == "Patient" })
        #expect(patient.uniqueConstraints.map(\.hashed) == [["nationalID"]])
        #expect(Set(patient.indexes.map(\.hashed)) == [["email"], []])
    }

    /// Marking attributes sensitive in an encrypted store moves their keys to hashed tables and
    /// empties the tables of their clear form; unmarking them moves them back, and an index
    /// dropped and declared again is filled anew, not read stale.
    @Test func changingTheMarkOrTheIndexesRebuildsTheTables() throws {
        let directory = TemporaryDirectory()
        let encryption = ModelConfiguration.Encryption.key(Self.key)
        do {
            let context = ModelContext(try container(directory, encryption, [SensitivePatientsV1.Patient.self]))
            for number in 0..<10 {
                context.insert(
                    SensitivePatientsV1.Patient(
                        nationalID: number == 3 ? Self.markers[0] : "id-\(number)",
                        email: number == 3 ? Self.markers[1] : "p\(number)@example.org", name: "Patient \(number)",
                        age: 20 + number))
            }
            try context.save()
        }
        #expect(try markersFound(under: directory.path) == Set(Self.markers))
        do {
            let container = try container(directory, encryption)
            let context = ModelContext(container)
            let email = Self.markers[1]
            #expect(try context.fetch(FetchDescriptor<Patient>(predicate: #Predicate { $0.email == email })).count == 1)
            // A name changed while the name's index is not declared.
            let patient = try #require(try context.fetch(FetchDescriptor<Patient>(predicate: #Predicate { $0.age == 25 })).first)
            patient.name = "Changed"
            try context.save()
            #expect(try container.verify().isClean)
        }
        // The clear tables are empty (the model-free verifier leaves them unchecked); their
        // pages are free, and a compaction leaves them out of the file.
        let report = try StoreInspector(path: directory.child("Clinic.store"), encryption: .key(Array(Self.key))).verify()
        #expect(report.isClean, "\(report)")
        for (table, entries) in [
            ("u/Patient/nationalID", 0), ("i/Patient/email", 0), ("i/Patient/email,age", 0), ("i/Patient/name", 0),
            ("u/Patient/#nationalID", 10), ("i/Patient/#email", 10), ("i/Patient/#email,age", 10), ("i/Patient/age", 10),
        ] {
            #expect(report.entriesByTable[table] == entries, "\(table)")
        }
        var configuration = StorageConfiguration(path: directory.child("Clinic.store"))
        configuration.encryption = encryption.secret
        configuration.sealedTables = StoreLayout.sealedTables
        _ = try StoreCompaction.compact(configuration)
        #expect(try markersFound(under: directory.path) == [])
        do {
            let context = ModelContext(try container(directory, encryption, [SensitivePatientsV1.Patient.self]))
            let changed = try context.fetch(
                FetchDescriptor<SensitivePatientsV1.Patient>(predicate: #Predicate { $0.name == "Changed" }))
            #expect(changed.map(\.age) == [25])
            #expect(try context.explain(
                FetchDescriptor<SensitivePatientsV1.Patient>(predicate: #Predicate { $0.name == "Changed" })
            ).accessPath == .indexEquality(table: "i/Patient/name", attribute: "name"))
            let stale = try context.fetch(
                FetchDescriptor<SensitivePatientsV1.Patient>(predicate: #Predicate { $0.name == "Patient 5" }))
            #expect(stale.isEmpty)
            #expect(try context.container.verify().isClean)
        }
    }

    /// Encrypting, rotating and decrypting a store rebuild its key tables: none holds a sensitive
    /// value in clear once encrypted, and every fetch answers the same after each step.
    @Test func rewritesRebuildTheKeyTables() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Clinic.store"))
        try insertPatients(ModelContext(try container(directory, nil)))
        func check(_ encryption: ModelConfiguration.Encryption?) throws {
            let container = try container(directory, encryption)
            let context = ModelContext(container)
            let (id, email) = (Self.markers[0], Self.markers[1])
            #expect(try context.fetch(FetchDescriptor<Patient>(predicate: #Predicate { $0.nationalID == id })).count == 1)
            #expect(try context.fetch(FetchDescriptor<Patient>(predicate: #Predicate { $0.email == email })).count == 1)
            #expect(try container.verify().isClean)
        }
        try ModelContainer.encryptStore(at: url, with: .key(Self.key))
        #expect(try markersFound(under: directory.path) == [])
        try check(.key(Self.key))
        #expect(try markersFound(under: directory.path) == [])
        try ModelContainer.rotateDataKey(ofStoreAt: url, with: .key(Self.key), newEncryption: .passphrase("rotated"))
        try check(.passphrase("rotated"))
        try ModelContainer.decryptStore(at: url, with: .passphrase("rotated"))
        try check(nil)
        #expect(try markersFound(under: directory.path) == Set(Self.markers))
    }
}
