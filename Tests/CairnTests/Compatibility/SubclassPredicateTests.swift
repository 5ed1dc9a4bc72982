import Foundation
import Testing

@testable import Cairn

// Written as SwiftData's "Adopting inheritance in SwiftData" writes it: trips of two kinds, a
// query narrowed to one kind with `$0 is PersonalTrip`, alone and joined to a search.

enum Travel {
    @Model class Trip {
        @Attribute(.unique) var name: String
        #Index<Trip>([\.destination])
        var destination: String
        var startDate: Date

        init(name: String, destination: String, startDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
        }
    }

    @Model class PersonalTrip: Trip {
        var reason: String

        init(name: String, destination: String, startDate: Date, reason: String) {
            self.reason = reason
            super.init(name: name, destination: destination, startDate: startDate)
        }
    }

    @Model final class FamilyTrip: PersonalTrip {
        var travellers: Int

        init(name: String, destination: String, startDate: Date, travellers: Int) {
            self.travellers = travellers
            super.init(name: name, destination: destination, startDate: startDate, reason: "family")
        }
    }

    @Model final class BusinessTrip: Trip {
        var perDiem: Double

        init(name: String, destination: String, startDate: Date, perDiem: Double) {
            self.perDiem = perDiem
            super.init(name: name, destination: destination, startDate: startDate)
        }
    }
}

@Suite struct SubclassPredicateTests {
    typealias Trip = Travel.Trip
    typealias PersonalTrip = Travel.PersonalTrip
    typealias FamilyTrip = Travel.FamilyTrip
    typealias BusinessTrip = Travel.BusinessTrip

    private let directory = TemporaryDirectory()

    private func container() throws -> ModelContainer {
        try makeContainer(
            Trip.self, PersonalTrip.self, FamilyTrip.self, BusinessTrip.self, in: directory, named: "Trips.store")
    }

    /// 30 business trips, 10 personal ones and 5 family ones (personal too), saved interleaved.
    private func filled() throws -> ModelContainer {
        let container = try container()
        let context = ModelContext(container)
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        for number in 0..<45 {
            let date = day.addingTimeInterval(Double(number) * 86_400)
            let city = ["Oslo", "Lima", "Pune"][number % 3]
            switch number % 9 {
            case 0, 4:
                context.insert(PersonalTrip(name: "P\(number)", destination: city, startDate: date, reason: "rest"))
            case 7: context.insert(FamilyTrip(name: "F\(number)", destination: city, startDate: date, travellers: 4))
            default: context.insert(BusinessTrip(name: "B\(number)", destination: city, startDate: date, perDiem: 80))
            }
        }
        try context.save()
        return container
    }

    @Test func aTypeCheckReadsOnlyTheSubclasssRows() throws {
        let container = try filled()
        let context = ModelContext(container)
        let personal = FetchDescriptor<Trip>(
            predicate: #Predicate { $0 is PersonalTrip }, sortBy: [SortDescriptor(\.name)])
        let trips = try context.fetch(personal)
        #expect(trips.count == 15 && trips.allSatisfy { $0 is PersonalTrip })
        #expect(trips.filter { $0 is FamilyTrip }.count == 5, "a subclass of the subclass is one too")
        #expect(context.statistics.recordLoads == 15, "no business trip was read")
        let plan = try context.explain(personal)
        #expect(plan.rowsOf == "PersonalTrip" && plan.estimatedRows == 15)
        #expect(plan.description.contains("of PersonalTrip rows"))
        #expect(try context.fetchCount(personal) == 15)
    }

    @Test func aTypeCheckJoinsOtherConditions() throws {
        let container = try filled()
        let context = ModelContext(container)
        let family = FetchDescriptor<Trip>(predicate: #Predicate { $0 is FamilyTrip && $0.destination == "Lima" })
        let expected = try ModelContext(container).fetch(FetchDescriptor<FamilyTrip>())
            .filter { $0.destination == "Lima" }.map(\.name).sorted()
        #expect(try context.fetch(family).map(\.name).sorted() == expected && !expected.isEmpty)
        let business = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == "Oslo" && $0 is BusinessTrip },
            sortBy: [SortDescriptor(\.startDate)])
        let oslo = try context.fetch(business)
        #expect(oslo.count == 10 && oslo.allSatisfy { $0 is BusinessTrip && $0.destination == "Oslo" })
        let plan = try context.explain(business)
        #expect(plan.accessPath == .indexEquality(table: plan.accessPath.table, attribute: "destination"))
        #expect(plan.rowsOf == "BusinessTrip")
        var firstThree = business
        firstThree.fetchLimit = 3
        #expect(try context.fetch(firstThree).map(\.name) == oslo.prefix(3).map(\.name))
    }

    @Test func unsavedModelsAreCheckedByTheirClass() throws {
        let container = try filled()
        let context = ModelContext(container)
        context.insert(PersonalTrip(name: "New", destination: "Oslo", startDate: .now, reason: "rest"))
        context.insert(BusinessTrip(name: "Work", destination: "Oslo", startDate: .now, perDiem: 1))
        let personal = FetchDescriptor<Trip>(predicate: #Predicate { $0 is PersonalTrip })
        #expect(try context.fetch(personal).count == 16)
        #expect(try context.fetchCount(personal) == 16)
    }

    @Test func aSubclassFetchReadsItsOwnRanges() throws {
        let container = try filled()
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<PersonalTrip>()).count == 15)
        #expect(context.statistics.recordLoads == 15)
        #expect(try context.fetchCount(FetchDescriptor<BusinessTrip>()) == 30)
        let plan = try context.explain(FetchDescriptor<BusinessTrip>())
        #expect(plan.rowsOf == "BusinessTrip" && plan.estimatedRows == 30)
        #expect(try context.explain(FetchDescriptor<Trip>()).rowsOf == nil)
    }

    @Test func aHistoryObserverOfASuperclassCountsItsSubclasses() throws {
        let container = try container()
        let observer = try HistoryObserver(observedModels: [PersonalTrip.self], modelContainer: container)
        let context = ModelContext(container)
        context.insert(BusinessTrip(name: "B", destination: "Oslo", startDate: .now, perDiem: 1))
        try context.save()
        observer.refresh()
        #expect(observer.eventCounter == 0)
        context.insert(FamilyTrip(name: "F", destination: "Oslo", startDate: .now, travellers: 3))
        try context.save()
        observer.refresh()
        #expect(observer.eventCounter == 1)
    }
}

extension FetchPlan.AccessPath {
    /// The table an access path reads, for comparing paths in tests.
    fileprivate var table: String {
        switch self {
        case .fullScan: ""
        case .identifiers(let table, _), .uniqueKey(let table, _), .indexEquality(let table, _),
            .keyList(let table, _, _), .indexRange(let table, _, _, _), .compoundIndex(let table, _, _),
            .indexOrder(let table, _, _, _, _):
            table
        }
    }
}

// A flat model that a later version divides into subclasses, through a lightweight stage.

enum FlatTripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model class Trip {
        var name: String
        var destination: String
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

enum DividedTripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, PersonalTrip.self, BusinessTrip.self] }

    @Model class Trip {
        var name: String
        var destination: String
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }

    @Model final class PersonalTrip: Trip {
        var reason: String = "rest"
        init(name: String, destination: String, reason: String) {
            self.reason = reason
            super.init(name: name, destination: destination)
        }
    }

    @Model final class BusinessTrip: Trip {
        var perDiem: Double = 0
        init(name: String, destination: String, perDiem: Double) {
            self.perDiem = perDiem
            super.init(name: name, destination: destination)
        }
    }
}

enum DivideTripsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [FlatTripsV1.self, DividedTripsV2.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: FlatTripsV1.self, toVersion: DividedTripsV2.self)]
    }
}

@Suite struct SubclassMigrationTests {
    @Test func aLightweightStageIntroducesSubclassesIntoAFlatModel() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Divided.store"))
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: FlatTripsV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(FlatTripsV1.Trip(name: "Old", destination: "Oslo"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: DividedTripsV2.self), migrationPlan: DivideTripsPlan.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(DividedTripsV2.PersonalTrip(name: "Beach", destination: "Lima", reason: "sun"))
        context.insert(DividedTripsV2.BusinessTrip(name: "Fair", destination: "Oslo", perDiem: 90))
        try context.save()
        let all = try context.fetch(FetchDescriptor<DividedTripsV2.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["Beach", "Fair", "Old"])
        #expect(type(of: all[2]) == DividedTripsV2.Trip.self, "a stored trip stays a trip")
        let personal = FetchDescriptor<DividedTripsV2.Trip>(
            predicate: #Predicate { $0 is DividedTripsV2.PersonalTrip })
        #expect(try context.fetch(personal).map(\.name) == ["Beach"])
        #expect(try context.explain(personal).rowsOf == "PersonalTrip")
        let reopened = ModelContext(
            try ModelContainer(
                for: Schema(versionedSchema: DividedTripsV2.self), migrationPlan: DivideTripsPlan.self,
                configurations: ModelConfiguration(url: url)))
        #expect(try reopened.fetchCount(FetchDescriptor<DividedTripsV2.BusinessTrip>()) == 1)
        #expect(try reopened.fetchCount(FetchDescriptor<DividedTripsV2.Trip>()) == 3)
    }
}
