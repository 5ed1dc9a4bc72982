import Foundation
import Testing

@testable import Cairn

/// The failed-load record on its own: what it keeps, how it reports, and the placeholders and
/// models a context hands out for what cannot be loaded.
@Suite struct LoadFailuresTests {
    let id = PersistentIdentifier(entityName: "Tally", storeIdentifier: "S", rowID: 7)

    @Test func theFirstErrorIsThrownNamingTheOthersAndTheListIsCleared() throws {
        var failures = LoadFailures()
        try failures.throwPending()  // nothing pending: nothing thrown
        let cause = StorageError(code: .damagedRecord, message: "damaged")
        for property in ["label", "amount", "holder"] {
            failures.record(id, property: property, cause: cause, reason: "damaged")
        }
        #expect(failures.errors.count == 3)
        let error = try #require(throws: FetchError.self) { try failures.throwPending() }
        #expect(error.code == .loadFailed && error.property == "label" && error.model == id)
        #expect(error.message.hasSuffix(" 2 more loads failed too (\(id).amount, \(id).holder)."))
        #expect(failures.errors.isEmpty)
    }

    @Test func storeDamageIsRecordedOncePerPlace() {
        var failures = LoadFailures()
        let cause = StorageError(code: .damagedRecord, message: "Bad floor.")
        failures.recordStoreDamage(cause, what: "The store's history floor")
        failures.recordStoreDamage(cause, what: "The store's history floor")
        #expect(failures.errors.count == 1 && failures.errors[0].model == nil)
        #expect(failures.errors[0].message.hasPrefix("The store's history floor could not be read: Bad floor."))
    }

    @Test func propertiesAreNamedByIndex() throws {
        let container = try tallyContainer()
        let tables = container.store.entities["Tally"]!
        let label = try #require(tables.entity.attributesByName["label"]?.index)
        let holder = try #require(tables.entity.relationships.first { $0.name == "holder" }?.index)
        #expect(LoadFailures.propertyName(label, tables: tables) == "label")
        #expect(LoadFailures.propertyName(holder, tables: tables) == "holder")
        #expect(LoadFailures.propertyName(99, tables: tables) == "property #99")
    }

    @Test func placeholdersAreDefaultValuesAndEmptyRelationships() throws {
        let container = try tallyContainer()
        let tables = container.store.entities["Tally"]!
        let tally = LoadFailures.untrackedModel(id, tables: tables, link: _ContextLink()) as! Tally
        #expect(tally.persistentModelID == id && !tally.isDeleted)
        let holder = tables.entity.relationships.first { $0.name == "holder" }!
        LoadFailures.fillPlaceholder(tally, holder.index, tables: tables)
        #expect(holder.access.isLoaded(tally) && !holder.access.hasTargets(tally))
    }

    @Test func anUnknownEntitysModelIsDeletedAndItsErrorRecorded() {
        var failures = LoadFailures()
        let unknown = PersistentIdentifier(entityName: "Nowhere", storeIdentifier: "S", rowID: 1)
        let model = failures.unknownEntityModel(unknown)
        #expect(model.isDeleted && model.persistentModelID == unknown)
        #expect(failures.errors.count == 1 && failures.errors[0].property == "*")
    }
}
