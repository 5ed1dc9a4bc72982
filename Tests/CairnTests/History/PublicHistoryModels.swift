import Cairn
import Foundation

// Models of the history tests, written as a SwiftData app writes them.

@Model final class Trip {
    #Unique<Trip>([\.name])
    @Attribute(.preserveValueOnDeletion) var name: String
    var destination: String
    @Attribute(.preserveValueOnDeletion) var startDate: Date
    var nights: Int
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(
        name: String, destination: String, startDate: Date = Date(timeIntervalSince1970: 1_700_000_000), nights: Int = 1
    ) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.nights = nights
    }
}

@Model final class Stop {
    var place: String
    var trip: Trip?

    init(place: String) {
        self.place = place
    }
}

@Model class Carrier {
    var plate: String
    init(plate: String) {
        self.plate = plate
    }
}

@Model final class Barge: Carrier {
    var seats: Int
    init(plate: String, seats: Int) {
        self.seats = seats
        super.init(plate: plate)
    }
}

func tripContainer(_ directory: TemporaryDirectory, name: String = "Trips.store") throws -> ModelContainer {
    try ModelContainer(
        for: Trip.self, Stop.self, Carrier.self, Barge.self,
        configurations: ModelConfiguration(url: URL(fileURLWithPath: directory.child(name))))
}
