import Foundation
import Testing

@testable import Cairn

@Suite struct PlannerTests {
    static let lastNames = ["Austen", "Brontë", "Dickens", "Eliot", "Gaskell", "Hardy", "Shelley", "Trollope", "Woolf"]

    func populated() throws -> ModelContext {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        for n in 0..<60 {
            let author = LibraryAuthor(
                firstName: "F\(n % 7)", lastName: Self.lastNames[n % Self.lastNames.count], email: "a\(n)@example.org")
            author.books = [LibraryBook(isbn: "isbn-\(n)", title: "Title \(n % 5)")]
            context.insert(author)
        }
        try context.save()
        return context
    }

    @Test func explainShowsTheAccessPath() throws {
        let context = try populated()
        let hardy = "Hardy", eliot = "Eliot", isbn = "isbn-7", title = "Title 1"
        let byIndex = try context.explain(
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == hardy }))
        #expect(byIndex.accessPath == .indexEquality(table: "i/LibraryAuthor/lastName", attribute: "lastName"))
        // An index equality finds exactly the rows that satisfy it: nothing is left to evaluate.
        #expect(byIndex.estimatedRows == 7 && !byIndex.evaluatesPredicate)
        let byUnique = try context.explain(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.isbn == isbn }))
        #expect(
            byUnique.accessPath == .uniqueKey(table: "u/LibraryBook/isbn", attribute: "isbn")
                && byUnique.estimatedRows == 1)
        let range = try context.explain(
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName >= eliot && $0.lastName < hardy }))
        #expect(
            range.accessPath
                == .indexRange(
                    table: "i/LibraryAuthor/lastName", attribute: "lastName", lower: ">= Eliot", upper: "< Hardy"))
        #expect(range.estimatedRows == 14)
        #expect("\(range)".contains("index range on i/LibraryAuthor/lastName (lastName >= Eliot, < Hardy)"))
        let scan = try context.explain(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.title == title }))
        #expect(scan.accessPath == .fullScan && scan.estimatedRows == 60)
        let combined = try context.explain(
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.firstName == "F1" && $0.lastName == hardy }))
        #expect(
            combined.accessPath
                == .uniqueKey(table: "u/LibraryAuthor/firstName,lastName", attribute: "firstName,lastName"))
    }

    @Test func indexedFetchesReturnWhatThePredicateSelects() throws {
        let context = try populated()
        let everyone = try context.fetch(FetchDescriptor<LibraryAuthor>())
        let (b, d, s, w) = ("Brontë", "Dickens", "Shelley", "Woolf")
        let predicates: [Predicate<LibraryAuthor>] = [
            #Predicate { $0.lastName == d },
            #Predicate { $0.lastName < d },
            #Predicate { $0.lastName <= d },
            #Predicate { $0.lastName > s },
            #Predicate { $0.lastName >= s && $0.lastName <= w },
            #Predicate { $0.lastName > b && $0.lastName < s && $0.firstName != "F3" },
            #Predicate { d < $0.lastName },
            #Predicate { $0.lastName == "Nobody" },
        ]
        for predicate in predicates {
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(ObjectIdentifier.init))
            let expected = Set(try everyone.filter { try predicate.evaluate($0) }.map(ObjectIdentifier.init))
            #expect(fetched == expected, "\(predicate)")
            #expect(try context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count)
        }
    }

    @Test func aCapturedListIsLookedUpKeyByKey() throws {
        let context = try populated()
        let names = ["Austen", "Woolf", "Nobody"]
        let descriptor = FetchDescriptor<LibraryAuthor>(predicate: #Predicate { names.contains($0.lastName) })
        let plan = try context.explain(descriptor)
        #expect(plan.accessPath == .keyList(table: "i/LibraryAuthor/lastName", attribute: "lastName", count: 3))
        #expect(plan.estimatedRows == 13 && "\(plan)".contains("3 key lookups on i/LibraryAuthor/lastName"))
        let everyone = try context.fetch(FetchDescriptor<LibraryAuthor>())
        let expected = Set(try everyone.filter { try descriptor.predicate!.evaluate($0) }.map(ObjectIdentifier.init))
        #expect(Set(try context.fetch(descriptor).map(ObjectIdentifier.init)) == expected && expected.count == 13)
        let isbns = ["isbn-1", "isbn-2", "isbn-2"]
        let books = FetchDescriptor<LibraryBook>(predicate: #Predicate { isbns.contains($0.isbn) })
        #expect(
            try context.explain(books).accessPath == .keyList(table: "u/LibraryBook/isbn", attribute: "isbn", count: 2))
        #expect(try context.fetch(books).map(\.isbn).sorted() == ["isbn-1", "isbn-2"])
    }

    /// An array of the attribute's type is encoded in one pass (`Slot.encodeList`); any other
    /// sequence element by element: both plan the same lookups and find the same models.
    @Test func aCapturedArrayAndOtherSequencesPlanTheSameLookups() throws {
        let context = try populated()
        let array = ["Hardy", "Austen", "Nobody", "Hardy"]
        let set = Set(array)
        let descriptors = [
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { array.contains($0.lastName) }),
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { set.contains($0.lastName) }),
        ]
        var found: [Set<ObjectIdentifier>] = []
        for descriptor in descriptors {
            let plan = try context.explain(descriptor)
            #expect(plan.accessPath == .keyList(table: "i/LibraryAuthor/lastName", attribute: "lastName", count: 3))
            #expect(!plan.evaluatesPredicate, "exact keys: nothing left to evaluate")
            found.append(Set(try context.fetch(descriptor).map(ObjectIdentifier.init)))
        }
        #expect(found[0].count == 14 && found[1] == found[0])
        // Elements of another type than the attribute's are never looked up as keys.
        let numbers: [Int] = [1, 2]
        let others = FetchDescriptor<LibraryAuthor>(predicate: #Predicate { numbers.contains($0.lastName.count) })
        #expect(try context.explain(others).accessPath == .fullScan)
    }

    @Test func unsavedChangesCountInIndexedFetches() throws {
        let context = try populated()
        let hardy = "Hardy"
        let descriptor = FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.lastName == hardy })
        let before = try context.fetch(descriptor)
        #expect(before.count == 7)
        let austen = try #require(
            try context.fetch(FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.email == "a0@example.org" }))
                .first)
        austen.lastName = "Hardy"
        context.delete(before[0])
        context.insert(LibraryAuthor(firstName: "New", lastName: "Hardy", email: "new@example.org"))
        let after = try context.fetch(descriptor)
        #expect(after.count == 8 && after.contains { $0 === austen } && !after.contains { $0 === before[0] })
        var stored = descriptor
        stored.includePendingChanges = false
        #expect(try context.fetch(stored).count == 7)
    }

    /// Index keys hold NFC bytes, so an index answers as Swift's `==` and `<` do, whichever
    /// canonically equivalent spelling was saved or asked for.
    @Test func canonicallyEquivalentStringsMatchThroughTheIndex() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let spellings = ["Bronte\u{301}", "Bront\u{E9}", "\u{212A}eats", "Keats", "Kea"]
        for (n, lastName) in spellings.enumerated() {
            context.insert(LibraryAuthor(firstName: "F\(n)", lastName: lastName, email: "u\(n)@example.org"))
        }
        try context.save()
        let fresh = ModelContext(context.container)
        let everyone = try fresh.fetch(FetchDescriptor<LibraryAuthor>())
        let (bronte, keats, kea) = ("Bront\u{E9}", "Keats", "Kea")
        let cases: [(Predicate<LibraryAuthor>, Int)] = [
            (#Predicate { $0.lastName == bronte }, 2),
            (#Predicate { $0.lastName >= bronte && $0.lastName <= bronte }, 2),
            (#Predicate { $0.lastName == keats }, 2),
            (#Predicate { $0.lastName > kea }, 2),
            (#Predicate { [bronte, keats].contains($0.lastName) }, 4),
        ]
        for (predicate, count) in cases {
            let descriptor = FetchDescriptor(predicate: predicate)
            #expect(try fresh.explain(descriptor).accessPath != .fullScan)
            let expected = try everyone.filter { try predicate.evaluate($0) }.map(\.email).sorted()
            #expect(try fresh.fetch(descriptor).map(\.email).sorted() == expected)
            #expect(expected.count == count)
        }
    }

    /// `#Index([\.lastName, \.firstName])` and `#Unique([\.firstName, \.lastName])` serve
    /// equalities on leading attributes and a range on the next one.
    @Test func compoundIndexesServePrefixesAndRanges() throws {
        let context = try populated()
        let everyone = try context.fetch(FetchDescriptor<LibraryAuthor>())
        let (hardy, f2, f4) = ("Hardy", "F2", "F4")
        let cases: [(Predicate<LibraryAuthor>, String, [String])] = [
            (
                #Predicate { $0.lastName == hardy && $0.firstName >= f2 }, "i/LibraryAuthor/lastName,firstName",
                ["lastName == Hardy", "firstName >= F2"]
            ),
            (
                #Predicate { $0.lastName == hardy && $0.firstName > f2 && $0.firstName <= f4 },
                "i/LibraryAuthor/lastName,firstName", ["lastName == Hardy", "firstName > F2", "firstName <= F4"]
            ),
            (
                #Predicate { $0.lastName == hardy && $0.firstName < f4 }, "i/LibraryAuthor/lastName,firstName",
                ["lastName == Hardy", "firstName < F4"]
            ),
            (
                #Predicate { $0.firstName >= f2 && $0.firstName <= f4 }, "u/LibraryAuthor/firstName,lastName",
                ["firstName >= F2", "firstName <= F4"]
            ),
            (#Predicate { $0.firstName == f2 }, "u/LibraryAuthor/firstName,lastName", ["firstName == F2"]),
        ]
        for (predicate, table, conditions) in cases {
            let descriptor = FetchDescriptor(predicate: predicate)
            let plan = try context.explain(descriptor)
            guard case .compoundIndex(let planTable, _, let planConditions) = plan.accessPath else {
                Issue.record("expected a compound index range, got \(plan)")
                continue
            }
            #expect(planTable == table && planConditions == conditions)
            let expected = try everyone.filter { try predicate.evaluate($0) }.map(\.email).sorted()
            #expect(!expected.isEmpty)
            #expect(plan.estimatedRows == expected.count, "the range holds exactly the matches: \(plan)")
            #expect(try context.fetch(descriptor).map(\.email).sorted() == expected)
        }
        // Equalities on every attribute of the compound uniqueness constraint: one key lookup.
        let byBoth = try context.explain(
            FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.firstName == f2 && $0.lastName == hardy }))
        #expect(
            byBoth.accessPath
                == .uniqueKey(table: "u/LibraryAuthor/firstName,lastName", attribute: "firstName,lastName"))
    }

    /// `$0.persistentModelID == id` and `ids.contains($0.persistentModelID)` read only those rows.
    @Test func identifiersAreLookedUpDirectly() throws {
        let context = try populated()
        let all = try context.fetch(FetchDescriptor<LibraryAuthor>())
        let id = all[7].persistentModelID
        let ids = [all[3], all[9], all[40]].map(\.persistentModelID)
        let one = FetchDescriptor<LibraryAuthor>(predicate: #Predicate { $0.persistentModelID == id })
        let plan = try context.explain(one)
        #expect(plan.accessPath == .identifiers(table: "e/LibraryAuthor", count: 1) && plan.estimatedRows == 1)
        let fresh = ModelContext(context.container)
        #expect(try fresh.fetch(one).map(\.persistentModelID) == [id])
        #expect(fresh.statistics.recordLoads == 1)
        let several = FetchDescriptor<LibraryAuthor>(
            predicate: #Predicate { ids.contains($0.persistentModelID) }, sortBy: [SortDescriptor(\.email)])
        #expect(try context.explain(several).accessPath == .identifiers(table: "e/LibraryAuthor", count: 3))
        #expect(Set(try fresh.fetch(several).map(\.persistentModelID)) == Set(ids))
    }
}
