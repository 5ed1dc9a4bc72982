import Foundation
import Testing

@testable import Cairn

/// No index: every comparison below is checked on the stored records of a full scan.
@Model final class ScannedPerson {
    var name: String
    var age: Int
    var weight: Double
    var nickname: String?
    var joined: Date

    init(name: String, age: Int, weight: Double, nickname: String? = nil, joined: Date = .distantPast) {
        self.name = name
        self.age = age
        self.weight = weight
        self.nickname = nickname
        self.joined = joined
    }
}

/// Comparisons of an attribute with a captured value are checked on each candidate's record
/// before a model is made for it (`RecordTests`): the answers are the predicate's, evaluated in
/// memory, and the rows that fail never become models.
@Suite struct RecordTestTests {
    static let day = Date(timeIntervalSinceReferenceDate: 86_400)

    /// People whose values meet the edges of each type's comparison: NaN and negative zero,
    /// canonically equivalent spellings, an absent optional, equal dates.
    func people() throws -> ModelContainer {
        let container = try makeContainer(inMemory: ScannedPerson.self)
        let context = ModelContext(container)
        let names = ["Jane", "Bront\u{E9}", "Bronte\u{301}", "Brontf", "", "jane", "Jan"]
        let weights = [0.0, -0.0, .nan, 1.5, -3, .infinity, 2.25]
        for position in 0..<140 {
            context.insert(
                ScannedPerson(
                    name: names[position % names.count], age: position % 13, weight: weights[position % 11 % 7],
                    nickname: position % 3 == 0 ? nil : "n\(position % 4)",
                    joined: Self.day.addingTimeInterval(Double(position % 5 - 2))))
        }
        try context.save()
        return container
    }

    @Test func rowsThatFailAComparisonNeverBecomeModels() throws {
        let container = try people()
        let context = ModelContext(container)
        let found = try context.fetch(
            FetchDescriptor<ScannedPerson>(predicate: #Predicate { $0.name == "Jane" && $0.age >= 10 }))
        #expect(found.count == 3 && found.allSatisfy { $0.name == "Jane" && $0.age >= 10 })
        #expect(context.statistics.recordLoads == found.count)
    }

    @Test func everyComparisonAgreesWithThePredicateInMemory() throws {
        let container = try people()
        let (day, accent, notANumber, infinity) = (Self.day, "Bront\u{E9}", Double("nan")!, Double.infinity)
        let predicates: [Predicate<ScannedPerson>] = [
            #Predicate { $0.name == accent }, #Predicate { $0.name < "Brontf" }, #Predicate { $0.name >= "Jan" },
            #Predicate { "Jane" > $0.name }, #Predicate { $0.weight == 0 }, #Predicate { $0.weight > -1 },
            #Predicate { $0.weight <= 1.5 }, #Predicate { $0.weight < infinity }, #Predicate { $0.weight == notANumber },
            #Predicate { $0.nickname == nil }, #Predicate { $0.nickname == "n1" }, #Predicate { $0.joined == day },
            #Predicate { $0.joined > day }, #Predicate { 3 < $0.age && $0.age <= 7 }, #Predicate { $0.age != 4 },
            #Predicate { $0.age >= 12 || $0.name == "" },
        ]
        let everyone = try ModelContext(container).fetch(FetchDescriptor<ScannedPerson>())
        for (position, predicate) in predicates.enumerated() {
            let fetched = try ModelContext(container).fetch(FetchDescriptor(predicate: predicate))
            let expected = try everyone.filter(predicate.evaluate)
            #expect(
                Set(fetched.map(\.persistentModelID)) == Set(expected.map(\.persistentModelID)),
                "predicate \(position): \(fetched.count) fetched, \(expected.count) expected")
            #expect(!expected.isEmpty || position == 8, "predicate \(position) should match someone")
        }
    }

    /// A record whose checksum fails is an error, not a row the test turns away: the checksum is
    /// checked before any field is read.
    @Test func aDamagedRecordInATestedScanIsAnErrorNotASkippedRow() throws {
        let container = try makeContainer(inMemory: ScannedPerson.self)
        let context = ModelContext(container)
        let person = ScannedPerson(name: "Jane", age: 30, weight: 1)
        context.insert(person)
        try context.save()
        let records = try #require(container.store.entities["ScannedPerson"]?.layout.records)
        let key = EntryLayout.rowKey(person.persistentModelID.rowID!)
        try container.store.environment.write { txn in
            var damaged = try #require(try txn.get(key, in: records))
            damaged[damaged.count / 2] ^= 0x20
            try txn.put(damaged, for: key, in: records)
        }
        let nobody = FetchDescriptor<ScannedPerson>(predicate: #Predicate { $0.name == "Nobody" })
        #expect(throws: (any Error).self) { try ModelContext(container).fetch(nobody) }
    }

    @Test func unsavedValuesDecideOverTheStoredRecord() throws {
        let container = try makeContainer(inMemory: ScannedPerson.self)
        let context = ModelContext(container)
        let (bob, jane) = (ScannedPerson(name: "Bob", age: 30, weight: 1), ScannedPerson(name: "Jane", age: 31, weight: 1))
        context.insert(bob)
        context.insert(jane)
        try context.save()
        bob.name = "Jane"
        jane.name = "Bob"
        let janes = FetchDescriptor<ScannedPerson>(predicate: #Predicate { $0.name == "Jane" })
        #expect(try context.fetch(janes).map(\.age) == [30])
        var stored = janes
        stored.includePendingChanges = false
        #expect(try context.fetch(stored).map(\.age) == [31])
        #expect(try ModelContext(container).fetch(janes).map(\.age) == [31])
    }
}
