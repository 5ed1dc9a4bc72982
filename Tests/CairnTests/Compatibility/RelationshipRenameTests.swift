import Cairn
import Foundation
import Testing

// Written as SwiftData code is: a relationship renamed between versions with `originalName:`.

enum KennelV1 {
    @Model final class Kennel {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Dog.kennel) var dogs: [Dog] = []
        init(name: String) { self.name = name }
    }

    @Model final class Dog {
        var name: String
        var kennel: Kennel?
        init(name: String) { self.name = name }
    }
}

enum KennelV2 {
    @Model final class Kennel {
        var name: String
        @Relationship(deleteRule: .cascade, originalName: "dogs", inverse: \Dog.home) var residents: [Dog] = []
        init(name: String) { self.name = name }
    }

    @Model final class Dog {
        var name: String
        @Relationship(originalName: "kennel") var home: Kennel?
        init(name: String) { self.name = name }
    }
}

@Suite struct RelationshipRenameTests {
    @Test func bothSidesOfARenamedRelationshipKeepTheirModels() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Kennel.store")))
        do {
            let context = ModelContext(try ModelContainer(for: KennelV1.Kennel.self, configurations: configuration))
            let kennel = KennelV1.Kennel(name: "North")
            context.insert(kennel)
            kennel.dogs = [KennelV1.Dog(name: "Rex"), KennelV1.Dog(name: "Fido")]
            try context.save()
        }
        let container = try ModelContainer(for: KennelV2.Kennel.self, configurations: configuration)
        let context = ModelContext(container)
        let kennel = try #require(try context.fetch(FetchDescriptor<KennelV2.Kennel>()).first)
        #expect(kennel.residents.map(\.name) == ["Rex", "Fido"], "order kept")
        let dogs = try context.fetch(FetchDescriptor<KennelV2.Dog>(sortBy: [SortDescriptor(\.name)]))
        #expect(dogs.map { $0.home?.name } == ["North", "North"])
        #expect(try container.verify().problems.isEmpty)

        // The renamed relationships work as any other: a change is saved and read back.
        kennel.residents.removeAll { $0.name == "Fido" }
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: KennelV2.Kennel.self, configurations: configuration))
        #expect(try reopened.fetch(FetchDescriptor<KennelV2.Kennel>()).first?.residents.map(\.name) == ["Rex"])
        #expect(
            try reopened.fetch(FetchDescriptor<KennelV2.Dog>(predicate: #Predicate { $0.name == "Fido" })).first?.home
                == nil)
    }
}
