import Cairn
import Foundation
import Testing

// Written as SwiftData code is: `let` stored properties, set once in `init` and read back after
// the store is reopened, on every path a model is read by.

enum AccountKind: String, Codable, CaseIterable { case cash, bank }

@Model final class Account {
    @Attribute(.unique) let number: String
    let opened: Date
    let kind: AccountKind
    let memo: String?
    var balance: Int
    @Relationship(deleteRule: .cascade, inverse: \AccountLine.ledger) var lines: [AccountLine] = []

    init(number: String, opened: Date, kind: AccountKind, memo: String? = nil, balance: Int = 0) {
        self.number = number
        self.opened = opened
        self.kind = kind
        self.memo = memo
        self.balance = balance
    }
}

@Model final class AccountLine {
    let id: UUID
    let amount: Int
    var ledger: Account?
    init(amount: Int) {
        id = UUID()
        self.amount = amount
    }
}

/// A `let` of a struct: a model whose row is gone reads it as the struct decoded from empty values.
struct AccountCode: Codable, Hashable { var text: String }

@Model final class CodedAccount {
    let code: AccountCode
    init(code: AccountCode) { self.code = code }
}

/// A `let` whose type has no empty value (no case has the raw value ""): Cairn cannot make a model
/// whose row is gone.
enum AccountRegion: String, Codable { case north, south }

@Model final class RegionalAccount {
    let region: AccountRegion
    init(region: AccountRegion) { self.region = region }
}

@Suite struct LetPropertyTests {
    let directory = TemporaryDirectory()
    let opened = Date(timeIntervalSince1970: 1_700_000_000)

    private func container() throws -> ModelContainer {
        try makeContainer(Account.self, in: directory, named: "Account.store")
    }

    /// Saves a ledger with two lines; returns the ledger's and the first line's identifiers.
    private func saveLedger() throws -> (ledger: PersistentIdentifier, line: PersistentIdentifier, lineID: UUID) {
        let context = ModelContext(try container())
        let ledger = Account(number: "L-1", opened: opened, kind: .bank, memo: "main", balance: 10)
        let first = AccountLine(amount: 7)
        ledger.lines = [first, AccountLine(amount: -3)]
        context.insert(ledger)
        try context.save()
        return (ledger.persistentModelID, first.persistentModelID, first.id)
    }

    @Test func valuesSetInInitAreReadBackAfterReopen() throws {
        let saved = try saveLedger()
        let context = ModelContext(try container())
        let ledger = try #require(try context.fetch(FetchDescriptor<Account>()).first)
        #expect(ledger.number == "L-1" && ledger.opened == opened && ledger.kind == .bank && ledger.memo == "main")
        #expect(ledger.balance == 10)
        #expect(ledger.persistentModelID == saved.ledger)
        // Related models made while walking a relationship carry their constants too.
        #expect(ledger.lines.map(\.amount) == [7, -3])
        #expect(ledger.lines.first?.id == saved.lineID)
    }

    @Test func everyWayOfReachingAModelGivesItsConstants() throws {
        let saved = try saveLedger()
        // By identifier: a fault made from the identifier alone.
        let byID = ModelContext(try container())
        let line = try #require(byID.model(for: saved.line) as? AccountLine)
        #expect(line.id == saved.lineID && line.amount == 7)
        // The to-one side, made while reading the line's relationship.
        #expect(line.ledger?.number == "L-1" && line.ledger?.kind == .bank)
        // registeredModel and a fetch of identifiers then models.
        let other = ModelContext(try container())
        let ids = try other.fetchIdentifiers(FetchDescriptor<AccountLine>(sortBy: [SortDescriptor(\.amount)]))
        let lines = ids.compactMap { other.model(for: $0) as? AccountLine }
        #expect(lines.map(\.amount) == [-3, 7])
        #expect(lines.allSatisfy { $0.ledger === lines[0].ledger }, "one ledger instance for both lines")
        // A batch-limited fetch goes through the batch loader.
        var descriptor = FetchDescriptor<AccountLine>(sortBy: [SortDescriptor(\.amount, order: .reverse)])
        descriptor.fetchLimit = 1
        #expect(try other.fetch(descriptor, batchSize: 1).map(\.amount) == [7])
    }

    @Test func predicatesSortsAndUniquenessUseConstants() throws {
        _ = try saveLedger()
        let context = ModelContext(try container())
        context.insert(Account(number: "L-2", opened: opened.addingTimeInterval(60), kind: .cash))
        try context.save()
        let bank = try context.fetch(FetchDescriptor<Account>(predicate: #Predicate { $0.number == "L-1" }))
        #expect(bank.map(\.kind) == [.bank])
        let newestFirst = try context.fetch(
            FetchDescriptor<Account>(sortBy: [SortDescriptor(\.opened, order: .reverse)]))
        #expect(newestFirst.map(\.number) == ["L-2", "L-1"])

        // `.unique` on a `let`: inserting the same number again updates the stored ledger.
        context.insert(Account(number: "L-2", opened: opened, kind: .bank, balance: 99))
        try context.save()
        let reread = ModelContext(try container())
        let twos = try reread.fetch(FetchDescriptor<Account>(predicate: #Predicate { $0.number == "L-2" }))
        #expect(twos.count == 1)
        #expect(twos.first?.balance == 99 && twos.first?.kind == .bank, "the new model's values, constants included")
    }

    @Test func changingAVarKeepsTheConstantsStored() throws {
        _ = try saveLedger()
        let context = ModelContext(try container())
        let ledger = try #require(try context.fetch(FetchDescriptor<Account>()).first)
        ledger.balance = 42
        try context.save()

        let elsewhere = ModelContext(try container())
        let stored = try #require(try elsewhere.fetch(FetchDescriptor<Account>()).first)
        #expect(stored.balance == 42 && stored.number == "L-1" && stored.opened == opened && stored.memo == "main")

        // Another context's save refreshes the vars; the constants stay as they are.
        stored.balance = 43
        try elsewhere.save()
        _ = try context.fetch(FetchDescriptor<Account>())
        #expect(ledger.balance == 43 && ledger.number == "L-1")
        context.rollback()
        #expect(ledger.number == "L-1" && ledger.kind == .bank)
    }

    @Test func aModelWhoseRowIsGoneReadsPlaceholdersInsteadOfTrapping() throws {
        let saved = try saveLedger()
        let deleting = ModelContext(try container())
        let ledger = try #require(deleting.model(for: saved.ledger) as? Account)
        deleting.delete(ledger)
        try deleting.save()

        let context = ModelContext(try container())
        let gone = try #require(context.model(for: saved.line) as? AccountLine)
        #expect(gone.amount == 0 && gone.id == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(gone.ledger == nil)
    }

    @Test func aStructConstantIsStoredAndHasAnEmptyValue() throws {
        let url = URL(fileURLWithPath: directory.child("Coded.store"))
        let first = ModelContext(
            try ModelContainer(for: CodedAccount.self, configurations: ModelConfiguration(url: url)))
        let account = CodedAccount(code: AccountCode(text: "X-9"))
        first.insert(account)
        try first.save()
        let id = account.persistentModelID

        let second = ModelContext(
            try ModelContainer(for: CodedAccount.self, configurations: ModelConfiguration(url: url)))
        #expect(try second.fetch(FetchDescriptor<CodedAccount>()).map(\.code) == [AccountCode(text: "X-9")])
        second.delete(try #require(second.model(for: id) as? CodedAccount))
        try second.save()

        let third = ModelContext(
            try ModelContainer(for: CodedAccount.self, configurations: ModelConfiguration(url: url)))
        let gone = try #require(third.model(for: id) as? CodedAccount)
        #expect(gone.code == AccountCode(text: ""), "the struct decoded from empty values")
    }

    @Test func aLetWhoseTypeHasNoEmptyValueIsATypedError() throws {
        let error = #expect(throws: SchemaError.self) {
            _ = try makeContainer(inMemory: RegionalAccount.self)
        }
        #expect(error?.message.contains("RegionalAccount.region is a `let` of type AccountRegion") == true)
        #expect(error?.message.contains("CaseIterable") == true)
    }
}
