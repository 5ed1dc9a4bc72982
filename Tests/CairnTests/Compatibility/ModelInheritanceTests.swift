import Cairn
import Foundation
import Observation
import Testing

// Written as SwiftData code is: models that inherit from models (`@Model class Car: Vehicle`).

@Model class Vehicle {
    var name: String
    let serial: String
    var wheels: Int = 4
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

/// A root model whose first inherited type is a protocol with a class-like name.
protocol Garageable: AnyObject {}
protocol VehicleRecord: AnyObject {}

@Model final class Garage: VehicleRecord {
    var city: String
    init(city: String) { self.city = city }
}

@Suite struct ModelInheritanceTests {
    @Test func aSubclassDescribesItsInheritedPropertiesRootedAtItself() throws {
        let car = Car.schemaMetadata
        #expect(car.map(\.name) == ["name", "serial", "wheels", "seats", "make"])
        #expect(car[0].keyPath == \Car.name, "the inherited property, rooted at the subclass")
        #expect(car[3].keyPath == \Car.seats)
        let sports = SportsCar.schemaMetadata
        #expect(sports.map(\.name) == ["name", "serial", "wheels", "seats", "make", "topSpeed"])
        #expect(Vehicle.schemaMetadata.map(\.name) == ["name", "serial", "wheels"])
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
        #expect(schema.entities.map(\.name) == ["SportsCar", "Car", "Vehicle"], "superclasses are taken in")
        let vehicle = try #require(schema.entity(for: Vehicle.self))
        let car = try #require(schema.entity(for: Car.self))
        #expect(car.superentityName == "Vehicle" && car.superentity === vehicle)
        #expect(vehicle.subentities.map(\.name) == ["Car"])
        #expect(vehicle.superentity == nil && vehicle.superentityName == nil)
    }

    @Test func aContainerRefusesAHierarchyItCannotStoreYet() {
        let error = #expect(throws: StorageError.self) {
            _ = try ModelContainer(for: Car.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error?.message.contains("Car inherits from Vehicle") == true)
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
            try ModelContainer(for: Bicycle.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
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
