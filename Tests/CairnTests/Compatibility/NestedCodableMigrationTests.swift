import Cairn
import Foundation
import Testing

// Written as SwiftData code is: each VersionedSchema declares its own Codable types, so their
// qualified names differ from version to version while their fields do not.

enum PlaceSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Place.self] }

    struct Address: Codable, Hashable {
        var street: String
        var city: String
    }

    @Model final class Place {
        var name: String
        var address: Address
        init(name: String, address: Address) {
            self.name = name
            self.address = address
        }
    }
}

enum PlaceSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Place.self] }

    struct Address: Codable, Hashable {
        var street: String
        var city: String
    }

    @Model final class Place {
        var name: String
        var address: Address
        var rating: Int = 0
        init(name: String, address: Address) {
            self.name = name
            self.address = address
        }
    }
}

/// Version 3 changes the address's shape: a postcode instead of a city.
enum PlaceSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Place.self] }

    struct Address: Codable, Hashable {
        var street: String
        var postcode: String
    }

    @Model final class Place {
        var name: String
        var address: Address
        init(name: String, address: Address) {
            self.name = name
            self.address = address
        }
    }
}

enum PlaceLightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PlaceSchemaV1.self, PlaceSchemaV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: PlaceSchemaV1.self, toVersion: PlaceSchemaV2.self)] }
}

enum PlaceReshapingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PlaceSchemaV1.self, PlaceSchemaV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: PlaceSchemaV1.self, toVersion: PlaceSchemaV3.self,
                willMigrate: { context in
                    // The old addresses cannot be read as new ones: start afresh.
                    try context.delete(model: PlaceSchemaV1.Place.self)
                    try context.save()
                }, didMigrate: nil)
        ]
    }
}

@Suite struct NestedCodableMigrationTests {
    private func makeV1Store(_ directory: TemporaryDirectory) throws -> ModelConfiguration {
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Places.store")))
        let context = ModelContext(
            try ModelContainer(for: Schema(versionedSchema: PlaceSchemaV1.self), configurations: configuration))
        context.insert(PlaceSchemaV1.Place(name: "Library", address: .init(street: "1 High St", city: "Bath")))
        try context.save()
        return configuration
    }

    @Test func theSameCodableTypeDeclaredInTheNextVersionReadsTheStoredValues() throws {
        let directory = TemporaryDirectory()
        let configuration = try makeV1Store(directory)
        let container = try ModelContainer(
            for: Schema(versionedSchema: PlaceSchemaV2.self), migrationPlan: PlaceLightweightPlan.self,
            configurations: configuration)
        let places = try ModelContext(container).fetch(FetchDescriptor<PlaceSchemaV2.Place>())
        #expect(places.map(\.address) == [PlaceSchemaV2.Address(street: "1 High St", city: "Bath")])
    }

    @Test func aReshapedCodableTypeIsRefusedWhileStoredValuesCannotBeReadAsIt() throws {
        let directory = TemporaryDirectory()
        let configuration = try makeV1Store(directory)
        #expect(throws: SchemaError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: PlaceSchemaV3.self), configurations: configuration)
        }
    }

    @Test func aStageThatDeletedEveryRowLetsTheTypeChange() throws {
        let directory = TemporaryDirectory()
        let configuration = try makeV1Store(directory)
        let container = try ModelContainer(
            for: Schema(versionedSchema: PlaceSchemaV3.self), migrationPlan: PlaceReshapingPlan.self,
            configurations: configuration)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<PlaceSchemaV3.Place>()) == 0)
        context.insert(PlaceSchemaV3.Place(name: "Museum", address: .init(street: "2 Low St", postcode: "BA1")))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<PlaceSchemaV3.Place>()).map(\.address.postcode) == ["BA1"])
    }
}
