import Foundation
import Testing

@testable import Cairn

enum SpecimenKind: String, Codable { case mineral, fossil }

struct SpecimenSite: Codable, Equatable {
    var latitude: Double
    var longitude: Double
}

@Model final class Specimen {
    var name: String
    var found: Bool = false
    var count: Int = 0
    var small: Int8 = -3
    var code: UInt16 = 65000
    var weight: Double = 0
    var ratio: Float = 0.5
    var price: Decimal = 0
    var collected: Date = Date(timeIntervalSinceReferenceDate: 0)
    var photo: Data = Data()
    var identifier: UUID = UUID()
    var page: URL? = nil
    var note: String? = nil
    var kind: SpecimenKind = .mineral
    var site: SpecimenSite? = nil
    var labels: [String] = []
    var measures: [String: Int] = [:]

    init(name: String) { self.name = name }
}

enum SpecimensV2 {
    @Model final class Specimen {
        var name: String
        var rarity: Int = 7
        init(name: String) { self.name = name }
    }
}

enum SpecimensV3 {
    @Model final class Specimen {
        var name: String
        var rarity: Int
        init(name: String, rarity: Int) {
            self.name = name
            self.rarity = rarity
        }
    }
}

@Suite struct ModelContextTests {
    func container(_ directory: TemporaryDirectory, maximumSize: Int? = nil) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Museum.store")))
        if let maximumSize { configuration.maximumSize = maximumSize }
        return try ModelContainer(for: Specimen.self, configurations: configuration)
    }

    func fullSpecimen() -> Specimen {
        let specimen = Specimen(name: "Ammonite")
        specimen.found = true
        specimen.count = 42
        specimen.small = -100
        specimen.code = 12
        specimen.weight = 3.25
        specimen.ratio = -0.125
        specimen.price = Decimal(string: "1234.5678")!
        specimen.collected = Date(timeIntervalSinceReferenceDate: 123_456.5)
        specimen.photo = Data([0, 1, 2, 255])
        specimen.page = URL(string: "https://example.org/ammonite")
        specimen.note = "from the cliffs"
        specimen.kind = .fossil
        specimen.site = SpecimenSite(latitude: 50.7, longitude: -2.9)
        specimen.labels = ["jurassic", "coast"]
        specimen.measures = ["diameter": 12, "ribs": 30]
        return specimen
    }

    @Test func savedModelsReopenWithEveryAttributeIntact() throws {
        let directory = TemporaryDirectory()
        let original = fullSpecimen()
        let id: PersistentIdentifier
        do {
            let context = ModelContext(try container(directory))
            context.insert(original)
            #expect(original.persistentModelID.isTemporary && context.hasChanges)
            try context.save()
            id = original.persistentModelID
            #expect(!id.isTemporary && !context.hasChanges && !original.hasChanges)
            #expect(original.modelContext === context)
        }
        let context = ModelContext(try container(directory))
        let reopened = try #require(context.model(for: id) as? Specimen)
        #expect(reopened !== original)
        #expect(reopened.name == "Ammonite" && reopened.found && reopened.count == 42 && reopened.small == -100)
        #expect(reopened.code == 12 && reopened.weight == 3.25 && reopened.ratio == -0.125)
        #expect(reopened.price == Decimal(string: "1234.5678")! && reopened.collected == original.collected)
        #expect(reopened.photo == Data([0, 1, 2, 255]) && reopened.identifier == original.identifier)
        #expect(reopened.page == URL(string: "https://example.org/ammonite") && reopened.note == "from the cliffs")
        #expect(reopened.kind == .fossil && reopened.site == SpecimenSite(latitude: 50.7, longitude: -2.9))
        #expect(reopened.labels == ["jurassic", "coast"] && reopened.measures == ["diameter": 12, "ribs": 30])
        #expect(!reopened.hasChanges && !context.hasChanges, "loading a fault is not a change")
    }

    @Test func aNewModelHasATemporaryIdentifierThatInsertKeeps() throws {
        let specimen = Specimen(name: "Mica")
        let early = specimen.persistentModelID
        #expect(early.isTemporary && early.entityName == "Specimen" && specimen.persistentModelID == early)
        let context = ModelContext(
            try makeContainer(inMemory: Specimen.self))
        context.insert(specimen)
        #expect(specimen.persistentModelID == early)
        try context.save()
        #expect(!specimen.persistentModelID.isTemporary)
    }

    @Test func insertedModelsAreFoundByTheirTemporaryIdentifiersUntilSavedOrRolledBack() throws {
        let context = ModelContext(
            try makeContainer(inMemory: Specimen.self))
        var inserted: [Specimen] = []
        // Looked up between inserts, so lookups meet models inserted after the last one.
        for round in 0..<5 {
            for number in 0..<40 {
                let specimen = Specimen(name: "s\(round)-\(number)")
                context.insert(specimen)
                inserted.append(specimen)
            }
            for specimen in inserted {
                #expect((context.registeredModel(for: specimen.persistentModelID) as Specimen?) === specimen)
                #expect(context.model(for: specimen.persistentModelID) === specimen)
            }
        }
        let temporary = inserted.map(\.persistentModelID)
        try context.save()
        for (specimen, old) in zip(inserted, temporary) {
            #expect(
                context.registeredModel(for: old) as Specimen? == nil, "a saved model has left its temporary identifier"
            )
            #expect((context.registeredModel(for: specimen.persistentModelID) as Specimen?) === specimen)
        }
        let discarded = Specimen(name: "discarded")
        context.insert(discarded)
        let discardedID = discarded.persistentModelID
        #expect((context.registeredModel(for: discardedID) as Specimen?) === discarded)
        context.rollback()
        #expect(context.registeredModel(for: discardedID) as Specimen? == nil)
    }

    @Test func aModelThatOutlivesItsContextNoLongerReachesIt() throws {
        let container = try makeContainer(inMemory: Specimen.self)
        var kept: [Specimen] = []
        weak var gone: ModelContext?
        do {
            let context = ModelContext(container)
            gone = context
            let inserted = Specimen(name: "Garnet")
            context.insert(inserted)
            try context.save()
            let reader = ModelContext(container)
            let fetched = try reader.fetch(FetchDescriptor<Specimen>())
            #expect(fetched.count == 1 && fetched[0].modelContext === reader)
            #expect(inserted.modelContext === context)
            kept = [inserted]
        }
        #expect(gone == nil, "models do not keep their context alive")
        #expect(kept[0].modelContext == nil && kept[0].name == "Garnet")
    }

    @Test func oneInstancePerIdentifierPerContext() throws {
        let container = try makeContainer(inMemory: Specimen.self)
        let writer = ModelContext(container)
        let specimen = Specimen(name: "Quartz")
        writer.insert(specimen)
        try writer.save()
        let id = specimen.persistentModelID
        #expect(writer.model(for: id) === specimen)
        #expect((writer.registeredModel(for: id) as Specimen?) === specimen)
        let reader = ModelContext(container)
        #expect(reader.registeredModel(for: id) as Specimen? == nil)
        let fault = try #require(reader.model(for: id) as? Specimen)
        #expect(reader.model(for: id) === fault)
        #expect((reader.registeredModel(for: id) as Specimen?) === fault)
        #expect(fault.name == "Quartz")
    }

    @Test func changesToAFaultKeepTheAttributesItDidNotLoad() throws {
        let directory = TemporaryDirectory()
        let id: PersistentIdentifier
        do {
            let context = ModelContext(try container(directory))
            let specimen = fullSpecimen()
            context.insert(specimen)
            try context.save()
            id = specimen.persistentModelID
        }
        do {
            let context = ModelContext(try container(directory))
            let fault = try #require(context.model(for: id) as? Specimen)
            fault.count = 43  // set without reading anything
            #expect(context.hasChanges && context.changedModelsArray.count == 1)
            try context.save()
            #expect(!context.hasChanges)
        }
        let context = ModelContext(try container(directory))
        let reopened = try #require(context.model(for: id) as? Specimen)
        #expect(reopened.count == 43 && reopened.name == "Ammonite" && reopened.labels == ["jurassic", "coast"])
    }

    @Test func deletesRemoveRowsAndMarkModels() throws {
        let container = try makeContainer(inMemory: Specimen.self)
        let context = ModelContext(container)
        let kept = Specimen(name: "kept")
        let gone = Specimen(name: "gone")
        let neverSaved = Specimen(name: "never saved")
        [kept, gone, neverSaved].forEach(context.insert)
        context.delete(neverSaved)
        #expect(context.deletedModelsArray.count == 1, "a never-saved model's deletion waits for the save too")
        try context.save()
        #expect(neverSaved.modelContext == nil, "dropped at the save, never written")
        context.delete(gone)
        #expect(context.deletedModelsArray.count == 1 && context.hasChanges)
        try context.save()
        #expect(gone.isDeleted && gone.modelContext == nil && !kept.isDeleted)
        let records = container.store.entities["Specimen"]!.layout.records
        #expect(try container.store.environment.read { txn in try txn.count(of: records) } == 1)
    }

    @Test func rollbackDiscardsInsertsChangesAndDeletes() throws {
        let container = try makeContainer(inMemory: Specimen.self)
        let context = ModelContext(container)
        let saved = Specimen(name: "saved")
        let doomed = Specimen(name: "doomed")
        context.insert(saved)
        context.insert(doomed)
        try context.save()
        let fresh = Specimen(name: "fresh")
        context.insert(fresh)
        saved.name = "renamed"
        saved.labels = ["changed"]
        context.delete(doomed)
        #expect(context.hasChanges)
        context.rollback()
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty && context.deletedModelsArray.isEmpty)
        #expect(fresh.modelContext == nil)
        #expect(saved.name == "saved" && saved.labels.isEmpty, "changed attributes reload their stored values")
        #expect(!doomed.isDeleted && doomed.modelContext === context)
        try context.save()
        let records = container.store.entities["Specimen"]!.layout.records
        #expect(try container.store.environment.read { txn in try txn.count(of: records) } == 2)
    }

    @Test func aFailedSaveKeepsTheChangesAndAFixedSaveCommitsEverything() throws {
        let directory = TemporaryDirectory()
        let container = try container(directory, maximumSize: 2 << 20)
        let context = ModelContext(container)
        let small = Specimen(name: "small")
        let huge = Specimen(name: "huge")
        huge.photo = Data(repeating: 7, count: 4 << 20)
        context.insert(small)
        context.insert(huge)
        #expect { try context.save() } throws: { ($0 as? StorageError)?.code == .maximumSizeReached }
        #expect(context.hasChanges && small.persistentModelID.isTemporary && context.insertedModelsArray.count == 2)
        huge.photo = Data(repeating: 7, count: 1000)
        try context.save()
        #expect(!small.persistentModelID.isTemporary && !huge.persistentModelID.isTemporary)
        let reopened = ModelContext(try self.container(directory))
        #expect((reopened.model(for: huge.persistentModelID) as? Specimen)?.photo.count == 1000)
        #expect((reopened.model(for: small.persistentModelID) as? Specimen)?.name == "small")
    }

    @Test func newRowsGetIncreasingIdentifiersAcrossSaves() throws {
        let container = try makeContainer(inMemory: Specimen.self)
        let context = ModelContext(container)
        var ids: [PersistentIdentifier] = []
        for round in 0..<3 {
            let batch = (0..<5).map { Specimen(name: "\(round)-\($0)") }
            batch.forEach(context.insert)
            try context.save()
            ids += batch.map(\.persistentModelID)
        }
        #expect(ids == ids.sorted() && Set(ids).count == 15)
        #expect(ids.allSatisfy { $0.storeIdentifier == container.storeIdentifier && $0.entityName == "Specimen" })
    }

    @Test func anAddedAttributeReadsItsDefaultFromOlderRecords() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Museum.store"))
        let id: PersistentIdentifier
        do {
            let context = ModelContext(try container(directory))
            let specimen = Specimen(name: "old")
            context.insert(specimen)
            try context.save()
            id = specimen.persistentModelID
        }
        let v2 = try ModelContainer(for: SpecimensV2.Specimen.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(v2)  // models need their context to load
        let reopened = try #require(context.model(for: id) as? SpecimensV2.Specimen)
        #expect(reopened.name == "old" && reopened.rarity == 7)
        // A required attribute with no default cannot be read from the rows already stored.
        #expect {
            try ModelContainer(for: SpecimensV3.Specimen.self, configurations: ModelConfiguration(url: url))
        } throws: { error in
            (error as? SchemaError)?.code == .incompatibleStore
                && (error as? SchemaError)?.message.contains("give it a default value, make it optional") == true
        }
    }

    @Test func aReadOnlyContainerRefusesToSave() throws {
        let directory = TemporaryDirectory()
        _ = try container(directory)
        let readOnly = try ModelContainer(
            for: Specimen.self,
            configurations: ModelConfiguration(
                url: URL(fileURLWithPath: directory.child("Museum.store")), allowsSave: false))
        let context = ModelContext(readOnly)
        context.insert(Specimen(name: "x"))
        #expect { try context.save() } throws: { ($0 as? StorageError)?.code == .readOnly }
        #expect(context.hasChanges)
    }
}
