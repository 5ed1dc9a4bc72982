import Foundation
import Testing

@testable import Cairn

@Suite struct BasicFetchTests {
    func context() throws -> ModelContext {
        let container = try makeContainer(inMemory: Specimen.self)
        let context = ModelContext(container)
        for (index, name) in ["Quartz", "Ammonite", "Garnet", "Trilobite", "Beryl"].enumerated() {
            let specimen = Specimen(name: name)
            specimen.count = index * 10
            specimen.kind = name == "Ammonite" || name == "Trilobite" ? .fossil : .mineral
            context.insert(specimen)
        }
        try context.save()
        return context
    }

    @Test func predicatesSortsLimitsAndOffsetsApply() throws {
        let context = try context()
        let fossil = SpecimenKind.fossil
        let fossils = try context.fetch(FetchDescriptor<Specimen>(predicate: #Predicate { $0.kind == fossil }))
        #expect(Set(fossils.map(\.name)) == ["Ammonite", "Trilobite"])
        var descriptor = FetchDescriptor<Specimen>(
            predicate: #Predicate { $0.count >= 10 }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        #expect(try context.fetch(descriptor).map(\.name) == ["Trilobite", "Garnet", "Beryl", "Ammonite"])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(try context.fetch(descriptor).map(\.name) == ["Garnet", "Beryl"])
        #expect(try context.fetchCount(descriptor) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Specimen>()) == 5)
    }

    @Test func pendingInsertsChangesAndDeletesCountUnlessExcluded() throws {
        let context = try context()
        let quartz = try #require(
            try context.fetch(FetchDescriptor<Specimen>(predicate: #Predicate { $0.name == "Quartz" })).first)
        quartz.count = 1000
        context.delete(try context.fetch(FetchDescriptor<Specimen>(predicate: #Predicate { $0.name == "Beryl" }))[0])
        context.insert(Specimen(name: "Opal"))
        let big = FetchDescriptor<Specimen>(predicate: #Predicate { $0.count >= 30 || $0.name == "Opal" })
        #expect(Set(try context.fetch(big).map(\.name)) == ["Quartz", "Trilobite", "Opal"])
        var saved = big
        saved.includePendingChanges = false
        #expect(Set(try context.fetch(saved).map(\.name)) == ["Trilobite", "Beryl"])
    }

    @Test func fetchedModelsAreTheContextsInstances() throws {
        let context = try context()
        let first = try context.fetch(FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.name)]))
        let second = try context.fetch(FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.name)]))
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        let fresh = ModelContext(context.container)
        let other = try fresh.fetch(FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.name)]))
        #expect(other.map(\.name) == first.map(\.name) && !zip(first, other).contains { $0 === $1 })
    }
}

@Suite struct FetchConvenienceTests {
    @Test func identifiersAndDeletesByPredicateFollowTheDescriptor() throws {
        let container = try makeContainer(inMemory: Specimen.self)
        let context = ModelContext(container)
        let specimens = (0..<6).map { n in
            let specimen = Specimen(name: "s\(n)")
            specimen.count = n
            return specimen
        }
        specimens.forEach(context.insert)
        try context.save()
        let ids = try context.fetchIdentifiers(
            FetchDescriptor<Specimen>(predicate: #Predicate { $0.count >= 3 }, sortBy: [SortDescriptor(\.count)]))
        #expect(ids == specimens[3...].map(\.persistentModelID))
        try context.delete(model: Specimen.self, where: #Predicate { $0.count < 2 })
        #expect(!context.hasChanges, "deleted in the store at once")
        #expect(specimens.map { $0.isDeleted } == [true, true, false, false, false, false])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Specimen>()) == 4)
        try context.delete(model: Specimen.self)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Specimen>()) == 0)
        #expect(specimens.allSatisfy { $0.isDeleted })
    }

    /// Several keys, both orders, optionals with nil first ascending and last descending, strings
    /// by `<` (Foundation's `SortDescriptor` order here), with and without the index-order path.
    @Test func sortsFollowSortDescriptorOrder() throws {
        let container = try makeContainer(PredMember.self, PredTeam.self, in: TemporaryDirectory(), named: "Sort.store")
        let context = ModelContext(container)
        let nicknames: [String?] = [nil, "b", "a", nil, "B", "\u{E9}", "e\u{301}", "a", "Z", ""]
        for (code, nickname) in nicknames.enumerated() {
            let member = PredMember(code: code)
            member.nickname = nickname
            member.score = code % 3
            context.insert(member)
        }
        try context.save()
        let fresh = ModelContext(container)
        let ascending: [Int] = [0, 3, 9, 4, 8, 2, 7, 1, 5, 6]
        for limit in [nil, 4] as [Int?] {
            var descriptor = FetchDescriptor<PredMember>(sortBy: [SortDescriptor(\.nickname), SortDescriptor(\.code)])
            descriptor.fetchLimit = limit
            #expect(try fresh.fetch(descriptor).map(\.code) == Array(ascending.prefix(limit ?? 10)))
            descriptor.sortBy = [SortDescriptor(\.nickname, order: .reverse), SortDescriptor(\.code, order: .reverse)]
            #expect(try fresh.fetch(descriptor).map(\.code) == Array(ascending.reversed().prefix(limit ?? 10)))
            descriptor.sortBy = [SortDescriptor(\.score, order: .reverse), SortDescriptor(\.nickname)]
            let expected = try fresh.fetch(FetchDescriptor<PredMember>()).sorted(using: descriptor.sortBy)
            #expect(try fresh.fetch(descriptor).map(\.code) == Array(expected.map(\.code).prefix(limit ?? 10)))
        }
        // Foundation's order on the same values, for the record.
        let foundation = nicknames.enumerated().map { ($0.offset, $0.element) }.sorted {
            switch ($0.1, $1.1) {
            case (nil, nil): $0.0 < $1.0
            case (nil, _): true
            case (_, nil): false
            case (let a?, let b?): a < b || a == b && $0.0 < $1.0
            }
        }
        #expect(foundation.map(\.0) == ascending)
    }
}
