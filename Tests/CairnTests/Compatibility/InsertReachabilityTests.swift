import Cairn
import Foundation
import Testing

// Written as SwiftData code is: models related before they are inserted.

@Model final class Shelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Volume.shelf) var volumes: [Volume] = []
    var label: Tag?
    init(name: String, volumes: [Volume] = []) {
        self.name = name
        self.volumes = volumes
    }
}

@Model final class Volume {
    var title: String
    var shelf: Shelf?
    var tags: [Tag] = []
    init(title: String, shelf: Shelf? = nil) {
        self.title = title
        self.shelf = shelf
    }
}

@Model final class Tag {
    var word: String
    var volumes: [Volume] = []
    init(word: String) { self.word = word }
}

@Suite struct InsertReachabilityTests {
    func context() throws -> ModelContext {
        ModelContext(
            try makeContainer(inMemory: Shelf.self))
    }

    @Test func insertingAChildInsertsItsParentAndTheParentListsIt() throws {
        let context = try context()
        let shelf = Shelf(name: "Poetry")
        let volume = Volume(title: "Odes", shelf: shelf)
        context.insert(volume)
        #expect(shelf.volumes.map(\.title) == ["Odes"])
        #expect(shelf.modelContext === context)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Shelf>()).map(\.name) == ["Poetry"])
        #expect(try context.fetch(FetchDescriptor<Shelf>()).first?.volumes.map(\.title) == ["Odes"])
    }

    @Test func insertingAParentInsertsItsChildrenAndTheirGrandchildren() throws {
        let context = try context()
        let tag = Tag(word: "classic")
        let odes = Volume(title: "Odes")
        odes.tags = [tag]
        let shelf = Shelf(name: "Poetry", volumes: [odes, Volume(title: "Sonnets")])
        context.insert(shelf)
        #expect(odes.shelf === shelf)
        #expect(tag.volumes.map(\.title) == ["Odes"])
        #expect(tag.modelContext === context)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Volume>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Tag>()) == 1)
    }

    @Test func inversesAreInStepBeforeAnyInsert() throws {
        let shelf = Shelf(name: "Poetry")
        let odes = Volume(title: "Odes")
        odes.shelf = shelf
        #expect(shelf.volumes.map(\.title) == ["Odes"])
        let sonnets = Volume(title: "Sonnets")
        shelf.volumes.append(sonnets)
        #expect(sonnets.shelf === shelf)
        let prose = Shelf(name: "Prose")
        odes.shelf = prose
        #expect(shelf.volumes.map(\.title) == ["Sonnets"])
        #expect(prose.volumes.map(\.title) == ["Odes"])
        let tag = Tag(word: "classic")
        tag.volumes.append(odes)
        #expect(odes.tags.map(\.word) == ["classic"])

        let context = try context()
        context.insert(shelf)
        context.insert(prose)
        try context.save()
        let shelves = try context.fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.name)]))
        #expect(shelves.map { $0.volumes.map(\.title) } == [["Sonnets"], ["Odes"]])
    }

    @Test func anInsertedParentTakesAChildMadeLater() throws {
        let context = try context()
        let shelf = Shelf(name: "Poetry")
        context.insert(shelf)
        let odes = Volume(title: "Odes", shelf: shelf)
        #expect(odes.modelContext === context)
        #expect(shelf.volumes.map(\.title) == ["Odes"])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Volume>()) == 1)
    }

    @Test func initialisersRelateModelsBeforeAnyInsert() {
        let poetry = Shelf(name: "Poetry")
        let odes = Volume(title: "Odes", shelf: poetry)
        #expect(poetry.volumes.map(\.title) == ["Odes"])
        let favourites = Shelf(name: "Favourites", volumes: [odes])
        #expect(odes.shelf === favourites)
        #expect(poetry.volumes.isEmpty, "a volume is on one shelf")
    }

    @Test func modelsBuiltOnManyThreadsAtOnceKeepTheirOwnInverses() async {
        let counts = await withTaskGroup(of: [Int].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    (0..<200).map { round in
                        let shelf = Shelf(name: "\(worker)-\(round)")
                        for number in 0..<3 { Volume(title: "\(number)").shelf = shelf }
                        let moved = shelf.volumes[0]
                        moved.shelf = Shelf(name: "other")
                        return shelf.volumes.count * 10 + (moved.shelf?.volumes.count ?? 0)
                    }
                }
            }
            var all: [Int] = []
            for await counts in group { all += counts }
            return all
        }
        #expect(counts.count == 1_600)
        #expect(counts.allSatisfy { $0 == 21 })
    }

    @Test func aModelWhoseContextIsGoneCanStillBeRelated() throws {
        let container = try makeContainer(inMemory: Shelf.self)
        var context: ModelContext? = ModelContext(container)
        context!.insert(Shelf(name: "Poetry", volumes: [Volume(title: "Odes")]))
        try context!.save()
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Volume>())
        let odes = try #require(fetched.first)
        context = nil
        let prose = Shelf(name: "Prose")
        odes.shelf = prose  // its stored shelf cannot be loaded any more: left as it is
        #expect(prose.volumes.count == 1)
    }
}
