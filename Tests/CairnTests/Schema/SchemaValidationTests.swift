import Cairn
import Foundation
import Testing

// Models with schema problems that compile but cannot open a store, and models reached only
// through relationships.

@Model final class OrphanInvoice {
    var number: Int
    var customer: OrphanCustomer?
    init(number: Int) { self.number = number }
}

@Model final class OrphanCustomer {
    var name: String
    var region: OrphanRegion?
    init(name: String) { self.name = name }
}

@Model final class OrphanRegion {
    var name: String
    var customers: [OrphanCustomer] = []
    init(name: String) { self.name = name }
}

@Model final class MismatchShelf {
    var label: String
    @Relationship(inverse: \MismatchItem.shelf) var items: [MismatchItem] = []
    @Relationship(inverse: \MismatchItem.shelf) var featured: [MismatchItem] = []
    init(label: String) { self.label = label }
}

// Inverses are named on one side only: naming them on both sides is a circular reference for the
// compiler (as in SwiftData).
@Model final class MismatchItem {
    var name: String
    var shelf: MismatchShelf?
    init(name: String) { self.name = name }
}

@Model final class WrongInverseOwner {
    var name: String
    @Relationship(inverse: \WrongInversePet.name) var pets: [WrongInversePet] = []
    init(name: String) { self.name = name }
}

@Model final class WrongInversePet {
    var name: String
    var owner: WrongInverseOwner?
    init(name: String) { self.name = name }
}

@Model final class ConstraintOnRelationship {
    #Unique<ConstraintOnRelationship>([\.partner])
    var name: String
    var partner: ConstraintPartner?
    init(name: String) { self.name = name }
}

@Model final class ConstraintPartner {
    var name: String
    var friend: ConstraintOnRelationship?
    init(name: String) { self.name = name }
}

@Model final class BadCounts {
    var name: String
    @Relationship(minimumModelCount: 5, maximumModelCount: 2) var parts: [BadCountsPart] = []
    init(name: String) { self.name = name }
}

@Model final class BadCountsPart {
    var name: String
    var whole: BadCounts?
    init(name: String) { self.name = name }
}

enum FirstNamespace { @Model final class Item { var name: String = ""; init() {} } }
enum SecondNamespace { @Model final class Item { var title: String = ""; init() {} } }

@Model final class AmbiguousPerson {
    var name: String
    var home: AmbiguousCity?
    var work: AmbiguousCity?
    init(name: String) { self.name = name }
}

@Model final class AmbiguousCity {
    var name: String
    var residents: [AmbiguousPerson] = []
    init(name: String) { self.name = name }
}

@Suite struct SchemaValidationTests {
    func problem(_ types: [any PersistentModel.Type]) -> SchemaError? {
        do {
            try Schema(types).validate()
            return nil
        } catch {
            return error
        }
    }

    @Test func modelsReachedThroughRelationshipsAreIncludedAfterTheGivenOnes() throws {
        let schema = Schema([OrphanInvoice.self])
        try schema.validate()
        #expect(schema.entities.map(\.name) == ["OrphanInvoice", "OrphanCustomer", "OrphanRegion"])
        #expect(schema.entity(for: OrphanRegion.self)?.relationshipsByName["customers"]?.inverseName == "region")
        // Listing them changes nothing but the order the given ones come in.
        let listed = Schema([OrphanRegion.self, OrphanInvoice.self])
        #expect(listed.entities.map(\.name) == ["OrphanRegion", "OrphanInvoice", "OrphanCustomer"])
        #expect(Schema([OrphanInvoice.self, OrphanCustomer.self, OrphanRegion.self]) == schema)
    }

    @Test func twoRelationshipsClaimingOneInverseAreRefused() throws {
        let error = try #require(problem([MismatchShelf.self, MismatchItem.self]))
        #expect(error.code == .inverseMismatch && error.property == "featured")
        #expect(error.message.contains("both name MismatchItem.shelf as their inverse"))
    }

    @Test func anInverseThatIsNotARelationshipBackIsRefused() throws {
        let error = try #require(problem([WrongInverseOwner.self, WrongInversePet.self]))
        #expect(error.code == .invalidInverse && error.property == "pets")
        #expect(error.message.contains("Name a relationship of WrongInversePet"))
    }

    @Test func aUniquenessConstraintOnARelationshipIsRefused() throws {
        let error = try #require(problem([ConstraintOnRelationship.self, ConstraintPartner.self]))
        #expect(error.code == .invalidConstraint)
        #expect(error.message.contains("not a stored attribute"))
    }

    @Test func inconsistentModelCountsAreRefused() throws {
        let error = try #require(problem([BadCounts.self, BadCountsPart.self]))
        #expect(error.code == .invalidProperty && error.property == "parts")
        #expect(error.message.contains("minimum at most the maximum"))
    }

    @Test func twoModelsWithOneNameAreRefused() throws {
        let error = try #require(problem([FirstNamespace.Item.self, SecondNamespace.Item.self]))
        #expect(error.code == .duplicateEntity && error.message.contains("Rename one of them"))
    }

    @Test func ambiguousInversesAreLeftUnpaired() throws {
        let schema = Schema([AmbiguousPerson.self, AmbiguousCity.self])
        try schema.validate()
        let person = try #require(schema.entity(for: AmbiguousPerson.self))
        #expect(person.relationshipsByName["home"]?.inverseName == nil)
        #expect(person.relationshipsByName["work"]?.inverseName == nil)
        #expect(schema.entity(for: AmbiguousCity.self)?.relationshipsByName["residents"]?.inverseName == nil)
    }

    @Test func schemaErrorsCanBeCaughtByCode() {
        do {
            try Schema([BadCounts.self]).validate()
            Issue.record("validation passed")
        } catch SchemaError.Code.invalidProperty {
            // matched
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
