import Foundation
import Testing

@testable import Cairn

@Model final class Desk {
    var name: String
    @Relationship(inverse: \Clerk.desk) var clerk: Clerk?
    init(name: String) { self.name = name }
}

@Model final class Clerk {
    var name: String
    var desk: Desk?
    init(name: String) { self.name = name }
}

/// The inverse links on their own (what sets the other side), on models in no context, and the
/// maintainer that brings new targets into a context: the schema's relationships come from a
/// store.
@Suite struct InverseMaintainerTests {
    private let container: ModelContainer

    init() throws {
        container = try makeContainer(inMemory: LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self, Desk.self, Clerk.self)
    }

    /// A relationship of `Model` by name, and its inverse.
    private func sides<Model: PersistentModel>(
        _: Model.Type, _ name: String
    ) -> (relationship: Schema.Relationship, inverse: Schema.Relationship) {
        let tables = container.store.entitiesByType[ObjectIdentifier(Model.self)]!
        let relationship = tables.entity.relationshipsByName[name]!
        return (relationship, tables.inverses[relationship.index]!.inverse)
    }

    @Test func settingAToOneAppendsToTheToManyOnceAndMovesBetweenOwners() {
        let maintainer = InverseLinks(loadProperty: { _, _ in Issue.record("everything is loaded") })
        let (author, inverse) = sides(LibraryBook.self, "author")
        let (austen, burney) = (
            LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org"),
            LibraryAuthor(firstName: "Fanny", lastName: "Burney", email: "fanny@example.org")
        )
        let emma = LibraryBook(isbn: "978-1", title: "Emma")
        maintainer.update(emma, relationship: author, inverse: inverse, from: [], to: [austen])
        maintainer.update(emma, relationship: author, inverse: inverse, from: [], to: [austen])
        #expect(austen.books.map(\.title) == ["Emma"], "appended once")
        maintainer.update(emma, relationship: author, inverse: inverse, from: [austen], to: [burney])
        #expect(austen.books.isEmpty && burney.books.map(\.title) == ["Emma"])
        #expect(!maintainer.isMaintaining)
    }

    @Test func changingAToManySetsEachTargetsToOne() {
        let maintainer = InverseLinks(loadProperty: { _, _ in })
        let (books, inverse) = sides(LibraryAuthor.self, "books")
        let austen = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org")
        let (emma, persuasion) = (
            LibraryBook(isbn: "978-1", title: "Emma"), LibraryBook(isbn: "978-2", title: "Persuasion")
        )
        maintainer.update(austen, relationship: books, inverse: inverse, from: [], to: [emma, persuasion])
        #expect(emma.author === austen && persuasion.author === austen)
        maintainer.update(austen, relationship: books, inverse: inverse, from: [emma, persuasion], to: [persuasion])
        #expect(emma.author == nil && persuasion.author === austen)
    }

    @Test func aOneToOnePartnerLeavesItsPreviousPartner() {
        let maintainer = InverseLinks(loadProperty: { _, _ in })
        let (clerkOfDesk, inverse) = sides(Desk.self, "clerk")
        let (front, back) = (Desk(name: "front"), Desk(name: "back"))
        let ada = Clerk(name: "Ada")
        maintainer.update(front, relationship: clerkOfDesk, inverse: inverse, from: [], to: [ada])
        #expect(ada.desk === front)
        // Ada moves to the back desk: the front desk loses her.
        back.clerk = ada
        maintainer.update(back, relationship: clerkOfDesk, inverse: inverse, from: [], to: [ada])
        #expect(ada.desk === back && front.clerk == nil)
    }

    @Test func anUnloadedSideIsLoadedFirstThroughTheContext() {
        var loads: [Int] = []
        let (author, inverse) = sides(LibraryBook.self, "author")
        let maintainer = InverseLinks(loadProperty: { model, index in
            loads.append(index)
            inverse.access.load(model, [])
        })
        let austen = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org")
        inverse.access.unload(austen)
        let emma = LibraryBook(isbn: "978-1", title: "Emma")
        maintainer.update(emma, relationship: author, inverse: inverse, from: [], to: [austen])
        #expect(loads == [inverse.index])
        #expect(austen.books.map(\.title) == ["Emma"])
    }

    @Test func aReportedChangeMakesNewTargetsJoinTheContextAndSetsTheInverse() {
        let context = ModelContext(container)
        let maintainer = InverseMaintainer()
        maintainer.loadProperty = { model, index in context.fulfill(model, index) }
        let (clerkOfDesk, _) = sides(Desk.self, "clerk")
        let desk = Desk(name: "front")
        context.insert(desk)
        let ada = Clerk(name: "Ada")
        // Set without reporting, as a generated setter would before it reports the change.
        clerkOfDesk.access.load(desk, [ada])
        maintainer.relationshipDidChange(desk, clerkOfDesk.index, from: [], to: [ada], in: context)
        #expect(ada.modelContext === context && ada.desk === desk)
        #expect(context.insertedModelsArray.count == 2)
    }
}
