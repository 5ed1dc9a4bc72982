import Cairn
import Foundation
import Observation
import Testing

// Written as SwiftData code is: models that inherit from models (`@Model class Car: Vehicle`).

@Model class Vehicle {
    #Unique<Vehicle>([\.serial])
    #Index<Vehicle>([\.name])
    var name: String
    let serial: String
    var wheels: Int = 4
    var depot: Depot?
    init(name: String, serial: String) {
        self.name = name
        self.serial = serial
    }
}

@Model class Car: Vehicle {
    var seats: Int
    let make: String
    init(name: String, serial: String, make: String, seats: Int) {
        self.seats = seats
        self.make = make
        super.init(name: name, serial: serial)
    }
}

@Model final class SportsCar: Car {
    var topSpeed: Double = 250
    init(name: String, serial: String) {
        super.init(name: name, serial: serial, make: "Fast", seats: 2)
    }
}

@Model final class Depot {
    var city: String
    @Relationship(deleteRule: .cascade, inverse: \Vehicle.depot) var vehicles: [Vehicle] = []
    init(city: String) { self.city = city }
}

/// A root model whose first inherited type is a protocol with a class-like name.
protocol Garageable: AnyObject {}
protocol VehicleRecord: AnyObject {}

@Model final class Garage: VehicleRecord {
    var city: String
    init(city: String) { self.city = city }
}

@Suite struct ModelInheritanceTests {
    let directory = TemporaryDirectory()

    @Test func aSubclassDescribesItsInheritedPropertiesRootedAtItself() throws {
        let car = Car.schemaMetadata
        #expect(car.map(\.name) == ["name", "serial", "wheels", "depot", "seats", "make"])
        #expect(car[0].keyPath == \Car.name, "the inherited property, rooted at the subclass")
        #expect(car[4].keyPath == \Car.seats)
        let sports = SportsCar.schemaMetadata
        #expect(sports.map(\.name) == ["name", "serial", "wheels", "depot", "seats", "make", "topSpeed"])
        #expect(Vehicle.schemaMetadata.map(\.name) == ["name", "serial", "wheels", "depot"])
        #expect(Garage.schemaMetadata.map(\.name) == ["city"], "a protocol first is no superclass")
    }

    @Test func subclassModelsWorkAsObjectsBeforeTheyAreSaved() {
        let car = SportsCar(name: "Arrow", serial: "S-1")
        #expect(car.name == "Arrow" && car.serial == "S-1" && car.make == "Fast" && car.seats == 2)
        #expect(car.topSpeed == 250 && car.wheels == 4)
        car.name = "Bolt"
        car.topSpeed = 300
        #expect(car.name == "Bolt" && car.topSpeed == 300)

        let changed = InheritanceChangeFlag()
        withObservationTracking {
            _ = car.topSpeed
            _ = car.name
        } onChange: {
            changed.set()
        }
        car.name = "Comet"
        #expect(changed.value, "inherited properties are observable on the subclass")
    }

    @Test func theSchemaKnowsTheHierarchy() throws {
        let schema = Schema([SportsCar.self])
        #expect(
            Set(schema.entities.map(\.name)) == ["SportsCar", "Car", "Vehicle", "Depot"], "superclasses are taken in")
        let vehicle = try #require(schema.entity(for: Vehicle.self))
        let car = try #require(schema.entity(for: Car.self))
        #expect(car.superentityName == "Vehicle" && car.superentity === vehicle)
        #expect(vehicle.subentities.map(\.name) == ["Car"])
        #expect(vehicle.superentity == nil && vehicle.superentityName == nil)
    }

    @Test func fetchingASuperclassReturnsItsSubclassesModels() throws {
        let url = directory.child("Vehicles.store")
        let context = ModelContext(try container(url))
        try saveOneOfEach(in: context)

        let reopened = ModelContext(try container(url))
        let all = try reopened.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.serial)]))
        #expect(all.map(\.serial) == ["C-1", "S-1", "V-1"])
        #expect(all.map { "\(type(of: $0))" } == ["Car", "SportsCar", "Vehicle"], "each model of its own class")
        let sedan = try #require(all[0] as? Car)
        #expect(sedan.name == "Sedan" && sedan.make == "Acme" && sedan.seats == 5 && sedan.wheels == 4)
        #expect((all[1] as? SportsCar)?.topSpeed == 250)

        #expect(
            try reopened.fetch(FetchDescriptor<Car>(sortBy: [SortDescriptor(\.serial)])).map(\.serial) == [
                "C-1", "S-1",
            ])
        #expect(try reopened.fetch(FetchDescriptor<SportsCar>()).map(\.serial) == ["S-1"])
        #expect(try reopened.fetchCount(FetchDescriptor<Vehicle>()) == 3)
        #expect(try reopened.fetchCount(FetchDescriptor<Car>()) == 2)
        let fewSeats = FetchDescriptor<Car>(predicate: #Predicate { $0.seats < 4 && $0.name != "" })
        #expect(try reopened.fetch(fewSeats).map(\.serial) == ["S-1"])
        let byName = FetchDescriptor<Car>(predicate: #Predicate { $0.name == "Arrow" })
        #expect(try reopened.fetch(byName).map(\.serial) == ["S-1"], "through the inherited index")
        let vehiclesByName = FetchDescriptor<Vehicle>(predicate: #Predicate { $0.name == "Cart" })
        #expect(try reopened.fetch(vehiclesByName).map(\.serial) == ["V-1"])
        #expect(
            try reopened.fetchIdentifiers(FetchDescriptor<Car>()).map(\.entityName).sorted() == ["Car", "SportsCar"])
        #expect(try container(url).verify().problems.isEmpty)
    }

    @Test func aRelationshipToASuperclassHoldsSubclassModels() throws {
        let url = directory.child("Depot.store")
        let context = ModelContext(try container(url))
        let depot = Depot(city: "Lyon")
        depot.vehicles = [
            SportsCar(name: "Arrow", serial: "S-1"), Vehicle(name: "Cart", serial: "V-1"),
            Car(name: "Sedan", serial: "C-1", make: "Acme", seats: 5),
        ]
        context.insert(depot)
        try context.save()

        let reopened = ModelContext(try container(url))
        let stored = try #require(try reopened.fetch(FetchDescriptor<Depot>()).first)
        #expect(
            stored.vehicles.map { "\(type(of: $0))" } == ["SportsCar", "Vehicle", "Car"], "in order, each its class")
        #expect(stored.vehicles.map(\.serial) == ["S-1", "V-1", "C-1"])
        let arrow = try #require(try reopened.fetch(FetchDescriptor<SportsCar>()).first)
        #expect(arrow.depot === stored, "the inherited to-one reads back")

        // Deleting the depot cascades to every class.
        reopened.delete(stored)
        try reopened.save()
        #expect(try reopened.fetchCount(FetchDescriptor<Vehicle>()) == 0)
        #expect(try container(url).verify().problems.isEmpty)
    }

    @Test func deletingByClassHonoursIncludeSubclasses() throws {
        let url = directory.child("Delete.store")
        let context = ModelContext(try container(url))
        try saveOneOfEach(in: context)
        try context.delete(model: Car.self, includeSubclasses: false)
        #expect(
            try context.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.serial)])).map(\.serial) == [
                "S-1", "V-1",
            ])
        try context.delete(model: Vehicle.self, where: #Predicate { $0.name != "Cart" })
        #expect(try context.fetch(FetchDescriptor<Vehicle>()).map(\.serial) == ["V-1"])
        #expect(try container(url).verify().problems.isEmpty)
    }

    @Test func aConstraintOfTheSuperclassHoldsAcrossTheHierarchy() throws {
        let url = directory.child("Unique.store")
        let context = ModelContext(try container(url))
        context.insert(Vehicle(name: "Cart", serial: "X-1"))
        context.insert(Car(name: "Sedan", serial: "C-1", make: "Acme", seats: 5))
        try context.save()
        // The same serial as a stored car: the new car takes it over (an upsert).
        context.insert(Car(name: "Coupe", serial: "C-1", make: "Acme", seats: 2))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Car>()).map(\.name) == ["Coupe"])
        // The serial of a stored vehicle that is no car: refused, nothing written.
        context.insert(Car(name: "Van", serial: "X-1", make: "Acme", seats: 8))
        let error = #expect(throws: SaveError.self) { try context.save() }
        #expect(error?.code == .uniquenessViolated)
        #expect(error?.message.contains("cannot replace") == true)
        context.rollback()
        #expect(try ModelContext(try container(url)).fetchCount(FetchDescriptor<Vehicle>()) == 2)
    }

    @Test func anotherContextsChangesToASubclassModelAreSeen() throws {
        let url = directory.child("Contexts.store")
        let shared = try container(url)
        let reader = ModelContext(shared)
        let writer = ModelContext(shared)
        let depot = Depot(city: "Oslo")
        writer.insert(depot)
        writer.insert(SportsCar(name: "Arrow", serial: "S-1"))
        try writer.save()
        let arrow = try #require(try reader.fetch(FetchDescriptor<Vehicle>()).first as? SportsCar)
        #expect(arrow.depot == nil)

        let written = try #require(try writer.fetch(FetchDescriptor<SportsCar>()).first)
        written.name = "Bolt"
        written.topSpeed = 320
        depot.vehicles.append(written)
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<Depot>())
        #expect(arrow.name == "Bolt" && arrow.topSpeed == 320, "inherited and own attributes refreshed")
        #expect(arrow.depot?.city == "Oslo", "the inherited relationship refreshed")
    }

    @Test func aPredicateCanAskForAClass() throws {
        let context = ModelContext(try container(directory.child("Is.store")))
        context.insert(Vehicle(name: "Cart", serial: "V-1"))
        context.insert(Car(name: "Sedan", serial: "C-1", make: "Acme", seats: 5))
        try context.save()
        let cars = FetchDescriptor<Vehicle>(predicate: #Predicate { $0 is Car })
        #expect(try context.fetch(cars).map(\.serial) == ["C-1"])
    }

    @Test func aSubclassAddedToAStoreJoinsItsSuperclassesRows() throws {
        let url = URL(fileURLWithPath: directory.child("Evolve.store"))
        let first = ModelContext(
            try ModelContainer(for: AnimalsV1.Animal.self, configurations: ModelConfiguration(url: url)))
        first.insert(AnimalsV1.Animal(name: "Generic"))
        try first.save()

        let second = ModelContext(
            try ModelContainer(
                for: AnimalsV2.Animal.self, AnimalsV2.Dog.self, configurations: ModelConfiguration(url: url)))
        second.insert(AnimalsV2.Dog(name: "Rex", breed: "Collie"))
        try second.save()
        let third = ModelContext(
            try ModelContainer(
                for: AnimalsV2.Animal.self, AnimalsV2.Dog.self, configurations: ModelConfiguration(url: url)))
        let animals = try third.fetch(FetchDescriptor<AnimalsV2.Animal>(sortBy: [SortDescriptor(\.name)]))
        #expect(animals.map(\.name) == ["Generic", "Rex"])
        #expect((animals[1] as? AnimalsV2.Dog)?.breed == "Collie")
        #expect(try third.fetch(FetchDescriptor<AnimalsV2.Dog>()).map(\.name) == ["Rex"])
    }

    @Test func limitsOffsetsAndPartialFetchesSpanTheHierarchy() throws {
        let context = ModelContext(try container(directory.child("Paging.store")))
        for number in 0..<6 {
            context.insert(
                number.isMultiple(of: 2)
                    ? Car(name: "Car \(number)", serial: "N-\(number)", make: "Acme", seats: number)
                    : Vehicle(name: "Vehicle \(number)", serial: "N-\(number)"))
        }
        try context.save()
        var page = FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.serial, order: .reverse)])
        page.fetchOffset = 1
        page.fetchLimit = 3
        #expect(try context.fetch(page).map(\.serial) == ["N-4", "N-3", "N-2"])
        let fresh = ModelContext(try container(directory.child("Paging.store")))
        var partial = FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.serial)])
        partial.propertiesToFetch = [\.name]
        let names = try fresh.fetch(partial)
        #expect(names.map(\.name) == (0..<6).map { $0.isMultiple(of: 2) ? "Car \($0)" : "Vehicle \($0)" })
        #expect((names[2] as? Car)?.seats == 2, "the rest loads when read")
        #expect(try fresh.fetch(FetchDescriptor<Car>(), batchSize: 2).map(\.serial).sorted() == ["N-0", "N-2", "N-4"])
    }

    @Test func subclassModelsAreUpserted() throws {
        let url = directory.child("Upsert.store")
        let context = ModelContext(try container(url))
        _ = try context.upsert([
            Car(name: "Sedan", serial: "C-1", make: "Acme", seats: 5), SportsCar(name: "Arrow", serial: "S-1"),
        ])
        let report = try context.upsert([Car(name: "Sedan II", serial: "C-1", make: "Acme", seats: 4)])
        #expect(report.updatedCount == 1 && report.insertedCount == 0)
        let stored = try ModelContext(try container(url)).fetch(
            FetchDescriptor<Car>(sortBy: [SortDescriptor(\.serial)]))
        #expect(stored.map(\.name) == ["Sedan II", "Arrow"] && stored.map(\.seats) == [4, 2])
        // A sports car with a plain car's serial cannot take the car over.
        #expect(throws: SaveError.self) { _ = try context.upsert([SportsCar(name: "Impostor", serial: "C-1")]) }
        context.rollback()
        #expect(try container(url).verify().problems.isEmpty)
    }

    @Test func aSubclassHasRelationshipsOfItsOwn() throws {
        let url = URL(fileURLWithPath: directory.child("Kennel.store"))
        func open() throws -> ModelContext {
            ModelContext(
                try ModelContainer(
                    for: Kennels.Pet.self, Kennels.Hound.self, Kennels.Kennel.self,
                    configurations: ModelConfiguration(url: url)))
        }
        let context = try open()
        let kennel = Kennels.Kennel(town: "York")
        let rex = Kennels.Hound(name: "Rex", kennel: kennel)
        rex.photo = Data(repeating: 7, count: 10_000)
        context.insert(rex)
        context.insert(Kennels.Pet(name: "Tom"))
        kennel.favourite = rex
        try context.save()
        #expect(kennel.hounds.map(\.name) == ["Rex"], "the inverse is kept before and after saving")

        let reopened = try open()
        let stored = try #require(try reopened.fetch(FetchDescriptor<Kennels.Kennel>()).first)
        #expect(stored.hounds.map(\.name) == ["Rex"])
        #expect(stored.favourite is Kennels.Hound, "a to-one to the superclass holds the subclass model")
        #expect(stored.hounds.first?.photo == Data(repeating: 7, count: 10_000), "a subclass's external value")
        #expect(try reopened.fetch(FetchDescriptor<Kennels.Pet>()).count == 2)
        reopened.delete(stored)
        try reopened.save()
        #expect(try reopened.fetch(FetchDescriptor<Kennels.Pet>()).map(\.name) == ["Tom"], "the cascade took the hound")
        #expect(
            try ModelContainer(
                for: Kennels.Pet.self, Kennels.Hound.self, Kennels.Kennel.self,
                configurations: ModelConfiguration(url: url)
            ).verify().problems.isEmpty)
    }

    /// Saves a vehicle (V-1), a car (C-1) and a sports car (S-1).
    private func saveOneOfEach(in context: ModelContext) throws {
        context.insert(Vehicle(name: "Cart", serial: "V-1"))
        context.insert(Car(name: "Sedan", serial: "C-1", make: "Acme", seats: 5))
        context.insert(SportsCar(name: "Arrow", serial: "S-1"))
        try context.save()
    }

    private func container(_ path: String) throws -> ModelContainer {
        try ModelContainer(
            for: Vehicle.self, Car.self, SportsCar.self, Depot.self,
            configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }
}

/// A store's first version: animals with no subclass.
enum AnimalsV1 {
    @Model class Animal {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Its second: dogs are animals.
enum AnimalsV2 {
    @Model class Animal {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Dog: Animal {
        var breed: String
        init(name: String, breed: String) {
            self.breed = breed
            super.init(name: name)
        }
    }
}

/// A subclass with a relationship of its own, and a model that points at the subclass.
enum Kennels {
    @Model class Pet {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Hound: Pet {
        var kennel: Kennel?
        @Attribute(.externalStorage) var photo: Data?
        init(name: String, kennel: Kennel?) {
            self.kennel = kennel
            super.init(name: name)
        }
    }

    @Model final class Kennel {
        var town: String
        @Relationship(deleteRule: .cascade, inverse: \Hound.kennel) var hounds: [Hound] = []
        var favourite: Pet?
        init(town: String) { self.town = town }
    }
}

/// A flag set from an observation's change handler.
private final class InheritanceChangeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false
    var value: Bool { lock.withLock { self.isSet } }
    func set() { lock.withLock { isSet = true } }
}

/// A model that is not `final` and has no subclass, as most SwiftData models are declared.
@Model class Bicycle {
    #Index<Bicycle>([\.gears])
    @Attribute(.unique) var frame: String
    var gears: Int
    init(frame: String, gears: Int) {
        self.frame = frame
        self.gears = gears
    }
}

@Suite struct OpenModelClassTests {
    @Test func aClassThatIsNotFinalIsStoredIndexedAndUnique() throws {
        let context = ModelContext(
            try makeContainer(inMemory: Bicycle.self))
        context.insert(Bicycle(frame: "F-1", gears: 21))
        context.insert(Bicycle(frame: "F-2", gears: 3))
        try context.save()
        context.insert(Bicycle(frame: "F-1", gears: 24))
        try context.save()
        let descriptor = FetchDescriptor<Bicycle>(
            predicate: #Predicate { $0.gears > 10 }, sortBy: [SortDescriptor(\.frame)])
        #expect(try context.fetch(descriptor).map(\.gears) == [24], "the unique frame updated the stored bicycle")
        #expect(
            try context.explain(descriptor).description.hasPrefix("index range on i/Bicycle/gears"),
            "the metadata's key paths, made for any class of the hierarchy, are the predicate's")
    }
}
