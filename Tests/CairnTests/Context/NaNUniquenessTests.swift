import Foundation
import Testing

@testable import Cairn

@Model final class NaNReading {
    @Attribute(.unique) var value: Double
    var note: String = ""

    init(_ value: Double, note: String = "") {
        self.value = value
        self.note = note
    }
}

@Model final class NaNFloatReading {
    @Attribute(.unique) var value: Float

    init(_ value: Float) { self.value = value }
}

@Model final class NaNOptionalReading {
    @Attribute(.unique) var value: Double?

    init(_ value: Double?) { self.value = value }
}

@Model final class NaNTimestamp {
    @Attribute(.unique) var at: Date

    init(_ at: Date) { self.at = at }
}

@Model final class NaNPairReading {
    #Unique<NaNPairReading>([\.sensor, \.value])
    var sensor: String
    var value: Double

    init(_ sensor: String, _ value: Double) {
        self.sensor = sensor
        self.value = value
    }
}

/// A NaN the compiler cannot see is one (it warns about `== .nan`, which these tests mean).
func notANumber() -> Double { Double(bitPattern: 0x7FF8_0000_0000_0000) }

/// A unique value that is not equal to itself (a NaN, or a date or optional holding one) equals no
/// other model's: each model keeps its own row, as in SQLite, where a NaN is stored as NULL and
/// NULLs never collide in a UNIQUE column. `-0.0` and `0.0` are one unique value, as `==` says.
@Suite struct NaNUniquenessTests {
    func container(_ directory: TemporaryDirectory) throws -> ModelContainer {
        try makeContainer(NaNReading.self, NaNFloatReading.self, NaNOptionalReading.self, NaNTimestamp.self, NaNPairReading.self, in: directory, named: "NaN.store")
    }

    func saveOneByOne<T: PersistentModel>(_ models: [T], in container: ModelContainer) throws {
        for model in models {
            let context = ModelContext(container)
            context.insert(model)
            try context.save()
        }
    }

    // Bug: every NaN was keyed as the one canonical NaN, so a model with a NaN unique value took
    // over the row of the previous one. Symptom: three models saved one by one left one row, the
    // other two overwritten without an error, while a fetch for NaN found nothing. Fix: a unique
    // key holding a value that is not equal to itself is not entered in the unique table.
    @Test func modelsWithNaNUniqueDoublesSavedOneByOneEachKeepTheirRow() throws {
        let directory = TemporaryDirectory()
        let container = try container(directory)
        try saveOneByOne([NaNReading(.nan, note: "a"), NaNReading(.nan, note: "b"), NaNReading(-.nan, note: "c")],
            in: container)
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<NaNReading>(sortBy: [SortDescriptor(\.note)]))
        #expect(all.map(\.note) == ["a", "b", "c"])
        #expect(all.allSatisfy { $0.value.isNaN })
        let missing = notANumber()
        #expect(try context.fetch(FetchDescriptor<NaNReading>(predicate: #Predicate { $0.value == missing })).isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<NaNReading>(predicate: #Predicate { $0.value != missing })) == 3)
        #expect(try container.verify().isClean)
        #expect(try context.invariantViolations().isEmpty)
    }

    @Test func modelsWithNaNInsertedInOneSaveEachGetARow() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        for note in ["a", "b", "c"] { context.insert(NaNReading(.nan, note: note)) }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<NaNReading>()) == 3)
        #expect(try context.invariantViolations().isEmpty)
    }

    @Test func floatsDatesAndOptionalsHoldingNaNAreEachDistinct() throws {
        let container = try container(TemporaryDirectory())
        try saveOneByOne([NaNFloatReading(.nan), NaNFloatReading(.nan)], in: container)
        try saveOneByOne([NaNOptionalReading(.nan), NaNOptionalReading(.nan)], in: container)
        let nanDate = Date(timeIntervalSinceReferenceDate: .nan)
        try saveOneByOne([NaNTimestamp(nanDate), NaNTimestamp(nanDate)], in: container)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<NaNFloatReading>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<NaNOptionalReading>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<NaNTimestamp>()) == 2)
        #expect(try container.verify().isClean)
    }

    @Test func aCompoundUniqueKeyWithANaNComponentIsDistinct() throws {
        let container = try container(TemporaryDirectory())
        try saveOneByOne([NaNPairReading("s", .nan), NaNPairReading("s", .nan), NaNPairReading("s", 1)], in: container)
        try saveOneByOne([NaNPairReading("s", 1)], in: container)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<NaNPairReading>()) == 3, "two NaN rows and one for 1")
        #expect(try container.verify().isClean)
    }

    @Test func aModelChangedToNaNFreesItsOldValueAndOneChangedFromNaNClaimsItsNewOne() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        let first = NaNReading(1, note: "first")
        context.insert(first)
        try context.save()
        first.value = .nan
        try context.save()
        let second = NaNReading(1, note: "second")
        context.insert(second)
        try context.save()
        #expect(second.persistentModelID != first.persistentModelID, "1 was freed")
        first.value = 2
        try context.save()
        let third = NaNReading(2, note: "third")
        context.insert(third)
        try context.save()
        #expect(third.persistentModelID == first.persistentModelID, "2 was claimed by the first")
        #expect(try context.fetchCount(FetchDescriptor<NaNReading>()) == 2)
        #expect(try context.invariantViolations().isEmpty)
        #expect(try container.verify().isClean)
    }

    @Test func deletingAModelWithANaNUniqueValueLeavesTheOthers() throws {
        let container = try container(TemporaryDirectory())
        try saveOneByOne([NaNReading(.nan, note: "a"), NaNReading(.nan, note: "b")], in: container)
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<NaNReading>(sortBy: [SortDescriptor(\.note)]))
        context.delete(all[0])
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<NaNReading>()).map(\.note) == ["b"])
        #expect(try container.verify().isClean)
    }

    @Test func upsertingModelsWithNaNInsertsEachOne() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        let first = try context.upsert([NaNReading(.nan, note: "a"), NaNReading(.nan, note: "b")])
        #expect(first.insertedRows.count == 2)
        let second = try context.upsert([NaNReading(.nan, note: "c")])
        #expect(second.insertedRows.count == 1 && second.updatedCount == 0)
        #expect(try context.fetchCount(FetchDescriptor<NaNReading>()) == 3)
    }

    /// `-0.0 == 0.0`, so they are one unique value: the second insert takes over the first's row,
    /// and a fetch for either finds it.
    @Test func negativeAndPositiveZeroAreOneUniqueValue() throws {
        let container = try container(TemporaryDirectory())
        try saveOneByOne([NaNReading(-0.0, note: "negative"), NaNReading(0.0, note: "positive")], in: container)
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<NaNReading>()).map(\.note) == ["positive"])
        let negativeZero = -0.0
        let found = try context.fetch(FetchDescriptor<NaNReading>(predicate: #Predicate { $0.value == negativeZero }))
        #expect(found.map(\.note) == ["positive"])
    }
}
