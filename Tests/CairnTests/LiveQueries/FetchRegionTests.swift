import Foundation
import Testing

@testable import Cairn

/// What a fetch reads (`FetchRegion`): the entities it returns and the attributes its predicate
/// and sort read, which decide the changes a live query looks at.
@Suite struct FetchRegionTests {
    private func region<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, _ container: ModelContainer) -> FetchRegion {
        FetchRegion(FetchRequest(descriptor, tables: container.store.entityTables(of: T.self, for: "test")))
    }

    @Test func aPredicateAndSortOnOwnAttributesReadThoseFieldsOnly() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let region = region(
            FetchDescriptor<LibraryAuthor>(
                predicate: #Predicate { $0.lastName == "Austen" }, sortBy: [SortDescriptor(\.firstName)]),
            container)
        let author = InternedName("LibraryAuthor")
        #expect(region.fields == ["lastName", "firstName"] && !region.readsOtherEntities)
        #expect(region.returns(author) && !region.returns(InternedName("LibraryBook")))
        #expect(region.reads(entity: author, fields: ["lastName"], inserted: false, unnamed: false))
        #expect(!region.reads(entity: author, fields: ["email"], inserted: false, unnamed: false))
        #expect(region.reads(entity: author, fields: [], inserted: true, unnamed: false), "a new row may match")
        #expect(region.reads(entity: author, fields: [], inserted: false, unnamed: true), "unnamed fields may be any")
        #expect(!region.reads(entity: InternedName("LibraryBook"), fields: ["title"], inserted: true, unnamed: false))
    }

    @Test func aPredicateThroughARelationshipReadsEveryEntity() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let region = region(
            FetchDescriptor<LibraryChapter>(predicate: #Predicate { $0.book?.title == "Emma" }), container)
        #expect(region.readsOtherEntities)
        #expect(region.reads(entity: InternedName("LibraryBook"), fields: ["title"], inserted: false, unnamed: false))
    }

    @Test func noPredicateReadsNoFieldButEveryNewRow() throws {
        let container = try libraryContainer(TemporaryDirectory())
        let region = region(FetchDescriptor<LibraryBook>(), container)
        #expect(region.fields.isEmpty && !region.readsOtherEntities)
        #expect(!region.reads(entity: InternedName("LibraryBook"), fields: ["title"], inserted: false, unnamed: false))
        #expect(region.reads(entity: InternedName("LibraryBook"), fields: [], inserted: true, unnamed: false))
    }
}
