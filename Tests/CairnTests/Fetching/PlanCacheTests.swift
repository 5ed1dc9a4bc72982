import Foundation
import Testing

@testable import Cairn

/// The planner's two stages: a shape made once per predicate shape and kept by the context, and
/// a binding per fetch that decides what depends on the values.
@Suite struct PlanCacheTests {
    func populated() throws -> ModelContext {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        for n in 0..<40 {
            let lastName = PlannerTests.lastNames[n % PlannerTests.lastNames.count]
            context.insert(LibraryAuthor(firstName: "F\(n % 7)", lastName: lastName, email: "a\(n)@example.org"))
        }
        try context.save()
        return context
    }

    /// The emails of the authors `predicate` selects, by evaluating it on every author.
    func expected(_ predicate: Predicate<LibraryAuthor>, in context: ModelContext) throws -> Set<String> {
        let everyone = try ModelContext(context.container).fetch(FetchDescriptor<LibraryAuthor>())
        return Set(try everyone.filter { try predicate.evaluate($0) }.map(\.email))
    }

    @Test func aPredicateFetchedWithOtherValuesKeepsItsShape() throws {
        let context = try populated()
        let before = context.plans.count
        for name in PlannerTests.lastNames + ["Nobody"] {
            let predicate = #Predicate<LibraryAuthor> { $0.lastName == name }
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.email))
            #expect(fetched == (try expected(predicate, in: context)), "\(name)")
            #expect(
                try context.explain(FetchDescriptor(predicate: predicate)).accessPath
                    == .indexEquality(table: "i/LibraryAuthor/lastName", attribute: "lastName"))
        }
        // One shape for every name; the unconditioned fetches made in `expected` plan no shape.
        #expect(context.plans.count == before + 1)
        // Another key path is another shape, with its own access path.
        let email = "a3@example.org"
        let byEmail = FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.email == email })
        #expect(try context.fetch(byEmail).map(\.email) == [email])
        #expect(context.plans.count == before + 2)
        #expect(
            try context.explain(byEmail).accessPath == .uniqueKey(table: "u/LibraryAuthor/email", attribute: "email"))
    }

    @Test func theValuesDecideWhatTheShapeCannot() throws {
        let context = try populated()
        func plan(from lower: String) throws -> FetchPlan.AccessPath {
            try context.explain(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName >= lower }))
                .accessPath
        }
        // A short bound keeps its order in the index: a range.
        guard case .indexRange = try plan(from: "Hardy") else {
            Issue.record("a short bound should scan an index range")
            return
        }
        // The same shape with a bound too long to keep its order (the index cuts and hashes long
        // keys) gives way to the next path.
        let long = String(repeating: "H", count: KeyBuilder.hashedPrefixLength + 10)
        #expect(try plan(from: long) == .fullScan)
        let fromLong = #Predicate<LibraryAuthor> { $0.lastName >= long }
        #expect(
            Set(try context.fetch(FetchDescriptor(predicate: fromLong)).map(\.email))
                == (try expected(fromLong, in: context)))
        // And back: the shape was not changed by the long value.
        guard case .indexRange = try plan(from: "Eliot") else {
            Issue.record("the shape should still scan an index range for a short bound")
            return
        }
    }

    @Test func identifiersOfAnotherStoreNameNoRowsWithTheSameShape() throws {
        let context = try populated()
        let all = try context.fetch(FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.email)]))
        let own = all[5].persistentModelID
        let other = ModelContext(try libraryContainer(TemporaryDirectory()))
        let stranger = LibraryAuthor(firstName: "X", lastName: "Y", email: "x@example.org")
        other.insert(stranger)
        try other.save()
        let foreign = stranger.persistentModelID
        for (id, count) in [(own, 1), (foreign, 0), (own, 1)] {
            let found = try context.fetch(
                FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.persistentModelID == id }))
            #expect(found.count == count)
            #expect(found.allSatisfy { $0.persistentModelID == own })
        }
    }

    @Test func theCacheStartsOverRatherThanGrow() {
        let cache = PlanCache()
        var made = 0
        func shape(_ entity: Int) {
            _ = cache.shape(entity: entity, parts: []) {
                made += 1
                return PredicatePlanner.Shape(identifierParts: [], slots: [], candidates: [.fullScan])
            }
        }
        for entity in 0..<PlanCache.capacity { shape(entity) }
        #expect(cache.count == PlanCache.capacity && made == PlanCache.capacity)
        shape(0)
        #expect(made == PlanCache.capacity)
        shape(PlanCache.capacity)
        #expect(cache.count == 1 && made == PlanCache.capacity + 1)
    }

    /// Alternating shapes: the last one asked for is compared part by part, the others found by
    /// their key; none is made twice, and each fetch gets its own shape's plan.
    @Test func alternatingShapesAreEachMadeOnce() throws {
        let context = try populated()
        let before = context.plans.count
        for n in 0..<6 {
            let (name, email) = (PlannerTests.lastNames[n % PlannerTests.lastNames.count], "a\(n)@example.org")
            let byName = #Predicate<LibraryAuthor> { $0.lastName == name }
            let byEmail = #Predicate<LibraryAuthor> { $0.email == email }
            #expect(
                Set(try context.fetch(FetchDescriptor(predicate: byName)).map(\.email))
                    == (try expected(byName, in: context)))
            #expect(try context.fetch(FetchDescriptor(predicate: byEmail)).map(\.email) == [email])
        }
        #expect(context.plans.count == before + 2)
    }

    /// A node type's conformance is asked once and answered as the cast answers it.
    @Test func aNodeTypeIsReadAsTheCastWouldRead() {
        let cache = PlanCache()
        let email = "a@example.org"
        let single = #Predicate<LibraryAuthor> { $0.email == email }.expression
        let both = #Predicate<LibraryAuthor> { $0.email == email && $0.lastName == email }.expression
        for _ in 0..<2 {
            #expect(cache.partReader(for: type(of: single)) != nil)
            #expect(cache.partReader(for: type(of: both)) == nil)
        }
        let parts = PredicatePlanner.parts(of: both, readers: cache)
        #expect(parts.count == 2)
        #expect(parts.map { $0.keyPath } == [\LibraryAuthor.email, \LibraryAuthor.lastName])
        #expect(parts.allSatisfy { ($0.value as? String) == email })
    }
}
