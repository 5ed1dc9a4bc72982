import Foundation
import Testing

@testable import Cairn

// Written as SwiftData code is: `@Attribute(.codable)` for values stored whole, opaque.

struct GeoPoint: Codable, Equatable {
    var latitude: Double
    var longitude: Double
}

@Model final class Landmark {
    var name: String
    @Attribute(.codable) var location: GeoPoint
    @Attribute(.codable) var aliases: [String]?
    @Attribute(.codable) var rank: Int = 0

    init(name: String, location: GeoPoint) {
        self.name = name
        self.location = location
    }
}

enum PinsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Pin.self] }

    struct Spot: Codable {
        var x: Double
        var y: Double
    }

    @Model final class Pin {
        var name: String
        @Attribute(.codable) var spot: Spot
        init(name: String, spot: Spot) {
            self.name = name
            self.spot = spot
        }
    }
}

enum PinsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Pin.self] }

    /// The same type with one more field, which older values lack.
    struct Spot: Codable {
        var x: Double
        var y: Double
        var label: String?
    }

    @Model final class Pin {
        var name: String
        @Attribute(.codable) var spot: Spot
        init(name: String, spot: Spot) {
            self.name = name
            self.spot = spot
        }
    }
}

@Suite struct CodableAttributeTests {
    private let directory = TemporaryDirectory()

    private func container() throws -> ModelContainer {
        try makeContainer(Landmark.self, in: directory, named: "Landmarks.store")
    }

    @Test func aCodableValueIsStoredWholeAndReadBack() throws {
        let container = try container()
        let context = ModelContext(container)
        let tower = Landmark(name: "Tower", location: GeoPoint(latitude: 59.9127, longitude: 10.7461))
        tower.aliases = ["Spire", "Needle"]
        tower.rank = 3
        context.insert(tower)
        context.insert(Landmark(name: "Hill", location: GeoPoint(latitude: 1, longitude: 2)))
        try context.save()
        let fresh = ModelContext(container)
        let read = try fresh.fetch(FetchDescriptor<Landmark>(sortBy: [SortDescriptor(\.name)]))
        #expect(read.map(\.name) == ["Hill", "Tower"])
        #expect(read[1].location == GeoPoint(latitude: 59.9127, longitude: 10.7461))
        #expect(read[1].aliases == ["Spire", "Needle"] && read[1].rank == 3)
        #expect(read[0].aliases == nil && read[0].rank == 0)
        #expect(container.schema.entitiesByName["Landmark"]?.attributesByName["location"]?.isCodable == true)

        // Its Codable encoding is what the record holds: JSON, keys sorted.
        let file = try Data(contentsOf: URL(fileURLWithPath: directory.child("Landmarks.store/data.mdb")))
        #expect(file.range(of: Data(#"{"latitude":59.9127,"longitude":10.7461}"#.utf8)) != nil)
    }

    @Test func aPredicateOrSortOnACodableAttributeIsATypedError() throws {
        let container = try container()
        let context = ModelContext(container)
        context.insert(Landmark(name: "Tower", location: GeoPoint(latitude: 59.9, longitude: 10.7)))
        try context.save()
        let north = FetchDescriptor<Landmark>(predicate: #Predicate { $0.location.latitude > 50 })
        for attempt in [{ _ = try context.fetch(north) }, { _ = try context.fetchCount(north) }] {
            let error = try #require(throws: FetchError.self) { try attempt() }
            #expect(error.code == .opaqueAttribute && error.message.contains("Landmark.location"))
        }
        let byRank = FetchDescriptor<Landmark>(sortBy: [SortDescriptor(\.rank)])
        let error = try #require(throws: FetchError.self) { _ = try context.fetch(byRank) }
        #expect(error.code == .opaqueAttribute && error.message.contains("sort descriptor"))
        #expect(throws: FetchError.self) {
            _ = try ResultsObserver<Landmark, Never>(fetchDescriptor: north, modelContext: context)
        }
        let named = FetchDescriptor<Landmark>(
            predicate: #Predicate { $0.name == "Tower" }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(named).count == 1, "other attributes filter and sort as ever")
    }

    @Test func aChangeOfTheTypesShapeNeedsNoMigrationStage() throws {
        let url = URL(fileURLWithPath: directory.child("Pins.store"))
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: PinsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(PinsV1.Pin(name: "Home", spot: PinsV1.Spot(x: 1, y: 2)))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: PinsV2.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let home = try #require(try context.fetch(FetchDescriptor<PinsV2.Pin>()).first)
        #expect(home.spot.x == 1 && home.spot.y == 2 && home.spot.label == nil)
        home.spot.label = "Home"
        try context.save()
        let again = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: PinsV2.self), configurations: ModelConfiguration(url: url)))
        #expect(try again.fetch(FetchDescriptor<PinsV2.Pin>()).first?.spot.label == "Home")
    }
}
