import Cairn
import Foundation
import Testing

// Written as SwiftData code is: `delete(model:where:)`, which deletes in the store at once.

@Model final class Ledger {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \LedgerEntry.ledger) var entries: [LedgerEntry] = []
    init(name: String) { self.name = name }
}

@Model final class LedgerEntry {
    var amount: Int
    var ledger: Ledger?
    var auditor: Auditor?
    init(amount: Int) { self.amount = amount }
}

@Model final class Auditor {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \LedgerEntry.auditor) var checked: [LedgerEntry] = []
    init(name: String) { self.name = name }
}

@Model final class Vault {
    var name: String
    @Relationship(deleteRule: .deny, inverse: \Coin.vault) var coins: [Coin] = []
    init(name: String) { self.name = name }
}

@Model final class Coin {
    var year: Int
    var vault: Vault?
    init(year: Int) { self.year = year }
}

@Suite struct BatchDeleteTests {
    let directory = TemporaryDirectory()

    private func container() throws -> ModelContainer {
        try makeContainer(Ledger.self, Vault.self, in: directory, named: "Batch.store")
    }

    @Test func anotherContainerSeesTheDeleteAtOnceAndCascadesAndNullifiesApply() throws {
        let context = ModelContext(try container())
        let auditor = Auditor(name: "Ada")
        let (kept, closed) = (Ledger(name: "kept"), Ledger(name: "closed"))
        context.insert(kept)
        context.insert(closed)
        for amount in 1...4 {
            let entry = LedgerEntry(amount: amount)
            (amount <= 2 ? kept : closed).entries.append(entry)
            entry.auditor = auditor
        }
        try context.save()
        let closedEntry = try #require(closed.entries.first)

        try context.delete(model: Ledger.self, where: #Predicate { $0.name == "closed" })

        let elsewhere = ModelContext(try container())
        #expect(try elsewhere.fetch(FetchDescriptor<Ledger>()).map(\.name) == ["kept"])
        #expect(try elsewhere.fetchCount(FetchDescriptor<LedgerEntry>()) == 2, "the cascade went with it")
        #expect(try elsewhere.fetch(FetchDescriptor<Auditor>()).first?.checked.count == 2, "nullified")
        #expect(closed.isDeleted && closed.modelContext == nil, "the context's instance is deleted")
        #expect(closedEntry.isDeleted, "so is the instance its cascade took")
        #expect(!kept.isDeleted && kept.entries.count == 2)
        #expect(auditor.checked.map(\.amount).sorted() == [1, 2])
        #expect(!context.hasChanges)
    }

    @Test func withoutAPredicateEveryModelGoes() throws {
        let context = ModelContext(try container())
        for index in 0..<5_000 { context.insert(Ledger(name: "\(index)")) }
        try context.save()
        let fresh = ModelContext(try container())
        try fresh.delete(model: Ledger.self)
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<Ledger>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Ledger>()) == 0)
    }

    @Test func aDenyRuleRefusesTheWholeDelete() throws {
        let context = ModelContext(try container())
        let vaults = (0..<3).map { Vault(name: "v\($0)") }
        for vault in vaults { context.insert(vault) }
        vaults[1].coins.append(Coin(year: 1900))
        try context.save()
        #expect(throws: SaveError.self) { try context.delete(model: Vault.self) }
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<Vault>()) == 3, "nothing deleted")
        try context.delete(model: Coin.self)
        try context.delete(model: Vault.self)
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<Vault>()) == 0)
    }

    @Test func unsavedChangesOfDeletedModelsAreDroppedAndUnsavedMatchesGoAtTheNextSave() throws {
        let context = ModelContext(try container())
        let (old, young) = (Coin(year: 1800), Coin(year: 2000))
        context.insert(old)
        context.insert(young)
        try context.save()
        old.year = 1801
        let unsavedOld = Coin(year: 1700)
        let unsavedYoung = Coin(year: 2020)
        context.insert(unsavedOld)
        context.insert(unsavedYoung)

        try context.delete(model: Coin.self, where: #Predicate { $0.year < 1900 })
        #expect(old.isDeleted)
        try context.save()
        #expect(
            try ModelContext(try container()).fetch(FetchDescriptor<Coin>(sortBy: [SortDescriptor(\.year)])).map(\.year)
                == [
                    2000, 2020,
                ])
    }
}

@Suite struct InvalidatedAllTests {
    @Test func contextsLearnThatTheStoreWasErasedAndItsModelsAreDeleted() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Erased.store")))
        let container = try ModelContainer(for: Ledger.self, configurations: configuration)
        let context = ModelContext(container)
        let ledger = Ledger(name: "kept")
        context.insert(ledger)
        try context.save()
        let id = ledger.persistentModelID

        let log = NotificationLog()
        let observer = NotificationCenter.default.addObserver(
            forName: ModelContext.didSave, object: context, queue: nil
        ) { log.record($0) }
        defer { NotificationCenter.default.removeObserver(observer) }

        let other = try ModelContainer(for: Ledger.self, configurations: configuration)
        #expect(other.deleteAllData())
        #expect(try context.fetchCount(FetchDescriptor<Ledger>()) == 0)
        #expect(ledger.isDeleted, "its row is gone")
        #expect(log.invalidated == [[id]])
    }
}
