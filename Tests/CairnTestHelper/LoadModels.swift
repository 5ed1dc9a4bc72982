// The models of the multi-process load test, and how its store is set up and checked afterwards.
// The helper executable and the test target compile this same file (the tests' Support folder
// links to it), so both sides share one schema and one check.
import Cairn
import Foundation

/// An account: a unique number, the worker that owns it, and a balance. Only its owner moves
/// its balance, so saves never race on it and the total stays fixed.
@Model final class LoadAccount {
    @Attribute(.unique) var number: Int
    var owner: String
    var balance: Int

    init(number: Int, owner: String, balance: Int) {
        self.number = number
        self.owner = owner
        self.balance = balance
    }
}

/// A transfer, saved in the same save as the balances it moved; its reference is unique.
@Model final class LoadTransfer {
    @Attribute(.unique) var reference: String
    var from: Int
    var to: Int
    var amount: Int

    init(reference: String, from: Int, to: Int, amount: Int) {
        self.reference = reference
        self.from = from
        self.to = to
        self.amount = amount
    }
}

/// A claim on one of a few shared keys, which every worker of every process inserts and deletes:
/// the unique constraint under contention.
@Model final class LoadClaim {
    @Attribute(.unique) var key: Int
    var holder: String

    init(key: Int, holder: String) {
        self.key = key
        self.holder = holder
    }
}

/// SplitMix64: the load test's choices, replayable from its seed.
struct LoadRandom {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

enum LoadLedger {
    static let accountsPerWorker = 4
    static let openingBalance = 1_000
    static let claimKeys = 24

    static func container(_ path: String) throws -> ModelContainer {
        try ModelContainer(
            for: LoadAccount.self, LoadTransfer.self, LoadClaim.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    }

    static func owner(process: Int, worker: Int) -> String { "p\(process)w\(worker)" }

    /// The numbers of the accounts `owner(process, worker)` owns.
    static func accounts(process: Int, worker: Int, workers: Int) -> [Int] {
        let first = (process * workers + worker) * accountsPerWorker
        return Array(first..<first + accountsPerWorker)
    }

    static func total(processes: Int, workers: Int) -> Int {
        processes * workers * accountsPerWorker * openingBalance
    }

    /// Creates the store with every worker's accounts.
    static func setUp(_ path: String, processes: Int, workers: Int) throws {
        let context = ModelContext(try container(path))
        for process in 0..<processes {
            for worker in 0..<workers {
                for number in accounts(process: process, worker: worker, workers: workers) {
                    context.insert(
                        LoadAccount(
                            number: number, owner: owner(process: process, worker: worker), balance: openingBalance))
                }
            }
        }
        try context.save()
    }

    /// What is wrong with the store after a run: a lost acknowledged transfer, a balance its
    /// transfers do not explain, a total that moved, a duplicated unique value.
    static func problems(in container: ModelContainer, acknowledged: Set<String>, total: Int) throws -> [String] {
        let context = ModelContext(container)
        let accounts = try context.fetch(FetchDescriptor<LoadAccount>())
        let transfers = try context.fetch(FetchDescriptor<LoadTransfer>())
        let claims = try context.fetch(FetchDescriptor<LoadClaim>())
        var problems: [String] = []
        let references = Set(transfers.map(\.reference))
        if references.count != transfers.count { problems.append("duplicated transfer references") }
        let lost = acknowledged.subtracting(references)
        if !lost.isEmpty { problems.append("acknowledged transfers lost: \(lost.sorted().prefix(5))") }
        if Set(accounts.map(\.number)).count != accounts.count { problems.append("duplicated account numbers") }
        if Set(claims.map(\.key)).count != claims.count { problems.append("duplicated claim keys") }
        let sum = accounts.reduce(0) { $0 + $1.balance }
        if sum != total { problems.append("balances sum to \(sum), not \(total)") }
        var expected = Dictionary(uniqueKeysWithValues: accounts.map { ($0.number, openingBalance) })
        for transfer in transfers {
            expected[transfer.from, default: 0] -= transfer.amount
            expected[transfer.to, default: 0] += transfer.amount
        }
        for account in accounts where expected[account.number] != account.balance {
            problems.append("account \(account.number) holds \(account.balance), its transfers say \(expected[account.number] ?? 0)")
        }
        return problems
    }
}
