// A child process for Cairn's reliability tests. Each mode prints what it did on standard
// output, one line at a time, flushed, so the test can kill it at any moment and know what was
// acknowledged.
//
//   commit-loop <dir> <keys-per-transaction>   commit numbered transactions forever, "ack N" after each
//   fill <dir> <file-size-limit-bytes>         like commit-loop under RLIMIT_FSIZE until the disk is "full"
//   reader <dir> <seconds>                     check the count invariant in snapshots while others write
//   fork-check <dir>                           use an environment in a fork()ed child
//   create <dir> <umask-octal>                 create a store and a backup under the given umask
//   import <dir> <count> <chunk>               insert <count> small models, saving every <chunk>; print peak RSS
//   ledger <store> <seconds>                   save balanced batches of Tally rows, "ack N" after each save
//   ledger-reader <store>                      fetch every Tally forever, "read N sum S" after each fetch
//   planet-writer <store> <seconds>            insert a version 1 Planet per save, "ack N" after each
//   tally-update <store> <label> <amount> [<author>]   set the amount of the Tally with that label, or delete it ("delete")
//   fault-save <store> <first> <count> <volumes> <body-length>   numbered model saves (FaultWorkloads.swift)
//   damage-template <store> <commits>          build the damage tests' template store
//   damage-read <store>                        open a damaged store, read, check, save once more
//   disk-full <store> <how> <body-length> <limit> [<filler>]   save until the disk is full, free space, resume
//   load <store> <process> <workers> <seconds> <seed> <total>   model actors moving balances (LoadWorkload.swift)
//   durable-saves <store> <durability> <count>   numbered saves, "ack N" also in the fault log (DurabilityWorkload.swift)
//   sync-client <store> <server-url> <token> <first> <count>   notes saved and synced (SyncWorkload.swift)
import Cairn
import Foundation

#if canImport(Glibc)
import Glibc
#endif

func say(_ line: String) {
    print(line)
    fflush(nil)
}

func fail(_ line: String) -> Never {
    say("failed " + line)
    exit(1)
}

/// Numbered transactions: transaction `n` writes `keys` entries `(n, i)` with value `n`, and sets
/// `last` to `n`, all in one commit. A reader can then check that every transaction up to `last`
/// is whole and nothing after it exists.
enum NumberedTransactions {
    static let lastKey = Array("last".utf8)

    /// The secret of the numbered store while `rekey-loop` has it encrypted (its table `t` sealed).
    static let secret = StoreEncryption.key(Array(repeating: 0x42, count: 32))

    /// The numbered store's configuration: table `t` sealed when it is encrypted.
    static func configuration(_ directory: String) -> StorageConfiguration {
        var configuration = StorageConfiguration(path: directory)
        configuration.sealedTables = SealedTables(names: ["t"])
        return configuration
    }

    static func key(_ n: UInt64, _ i: UInt32) -> [UInt8] {
        withUnsafeBytes(of: n.bigEndian) { Array($0) } + withUnsafeBytes(of: i.bigEndian) { Array($0) }
    }

    static func value(_ n: UInt64, padding: Int = 0) -> [UInt8] {
        withUnsafeBytes(of: n.bigEndian) { Array($0) }
            + [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: padding)
    }

    static func decode(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}

func openNumberedStore(_ directory: String) throws -> (LMDBEnvironment, Table) {
    let environment = try LMDBEnvironment.openOrCreate(StorageConfiguration(path: directory))
    let table = try environment.openTable("t", create: true)!
    return (environment, table)
}

func commitLoop(_ directory: String, keys: UInt32, padding: Int, limit: UInt64 = .max) throws {
    let (environment, table) = try openNumberedStore(directory)
    var n = try environment.read { txn in
        try txn.get(NumberedTransactions.lastKey, in: table).map(NumberedTransactions.decode) ?? 0
    }
    while n < limit {
        n += 1
        let current = n
        try environment.write { txn in
            for i in 0..<keys {
                try txn.put(
                    NumberedTransactions.value(current, padding: padding), for: NumberedTransactions.key(current, i),
                    in: table)
            }
            try txn.put(NumberedTransactions.value(current), for: NumberedTransactions.lastKey, in: table)
        }
        say("ack \(current)")
    }
}

/// A small model for the import measurement.
@Model final class ImportedReading {
    var sensor: Int
    var value: Double
    var label: String
    init(sensor: Int, value: Double, label: String) {
        self.sensor = sensor
        self.value = value
        self.label = label
    }
}

/// The same models as the tests' `Tally` and `TallyHolder`, so both processes share one schema.
/// The first version of the migration rehearsal tests' planets (`MigrationRehearsalTests`).
enum HelperPlanetSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Planet.self] }

    @Model final class Planet {
        var name: String
        var moons: Int
        init(name: String, moons: Int) {
            self.name = name
            self.moons = moons
        }
    }
}

@Model final class Tally {
    var label: String
    var amount: Int
    var holder: TallyHolder?
    init(label: String, amount: Int) {
        self.label = label
        self.amount = amount
    }
}

@Model final class TallyHolder {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Tally.holder) var tallies: [Tally] = []
    init(name: String) { self.name = name }
}

/// One balanced save: a pair of tallies `+k` and `-k` (labels padded, so the map grows), and a
/// transfer between two tallies this process saved earlier. The sum of all amounts stays 0.
func ledgerSave(_ context: ModelContext, _ n: Int, _ mine: inout [Tally], prefix: String) throws {
    let k = n % 50 + 1
    let padding = String(repeating: "x", count: 1_500)
    let pair = [
        Tally(label: "\(prefix) \(n) + \(padding)", amount: k), Tally(label: "\(prefix) \(n) - \(padding)", amount: -k),
    ]
    for tally in pair { context.insert(tally) }
    if mine.count >= 2 {
        let from = mine[n % mine.count], to = mine[(n * 7 + 1) % mine.count]
        if from !== to {
            from.amount -= 3
            to.amount += 3
        }
    }
    try context.save()
    mine += pair
}

/// The process's peak resident memory in bytes so far.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024  // kilobytes on Linux
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: CairnTestHelper MODE DIR …") }
let mode = arguments[1]
let directory = arguments[2]

do {
    switch mode {
    case "commit-loop":
        try commitLoop(directory, keys: UInt32(arguments[3])!, padding: 16)

    case "commit-count":
        // Commits the given number of numbered transactions of one key each, then exits.
        try commitLoop(directory, keys: 1, padding: 16, limit: UInt64(arguments[3])!)

    case "rekey-loop":
        // `rekey-loop <store> <rounds> <plain|encrypted>`: rewrites the numbered store encrypted,
        // then plain, and so on (from the state given), saying "rekeyed N" after each rewrite.
        var encrypted = arguments[4] == "encrypted"
        for round in 1...Int(arguments[3])! {
            var configuration = NumberedTransactions.configuration(directory)
            configuration.encryption = encrypted ? NumberedTransactions.secret : nil
            try StoreRekeying.rewrite(
                configuration, to: encrypted ? nil : NumberedTransactions.secret, entriesPerTransaction: 40)
            encrypted.toggle()
            say("rekeyed \(round)")
        }

    case "rekey-once":
        // `rekey-once <store> <plain|encrypted>`: one rewrite of the numbered store from the state
        // given to the other; says "rekeyed", or "error rekey <code> <message>" for a typed error.
        let encrypted = arguments[3] == "encrypted"
        var configuration = NumberedTransactions.configuration(directory)
        configuration.encryption = encrypted ? NumberedTransactions.secret : nil
        do {
            try StoreRekeying.rewrite(
                configuration, to: encrypted ? nil : NumberedTransactions.secret, entriesPerTransaction: 40)
            say("rekeyed")
        } catch let error as StorageError {
            say("error rekey \(error.code) \(error.message)")
        }

    case "fill":
        // Create the store before the limit, so only commits meet it.
        _ = try openNumberedStore(directory)
        var limit = rlimit(rlim_cur: rlim_t(arguments[3])!, rlim_max: rlim_t(arguments[3])!)
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit") }
        // With SIGXFSZ ignored, a write past the limit fails with EFBIG; at its default the process
        // would be killed, which the store must never let happen.
        if arguments.count < 5 || arguments[4] != "default-signal" { signal(SIGXFSZ, SIG_IGN) }
        do {
            try commitLoop(directory, keys: 8, padding: 2000)
        } catch let error as StorageError {
            say("error \(error.code) \(error.message)")
            exit(0)
        }

    case "reader":
        let (environment, _) = try openNumberedStore(directory)
        let table = try environment.openTable("g", create: true)!
        let deadline = Date().addingTimeInterval(Double(arguments[3])!)
        var reads = 0
        var largestMap = 0
        while Date() < deadline {
            let (entries, recorded) = try environment.read { txn in
                (
                    try txn.count(of: table),
                    try txn.get(Array("count".utf8), in: table).map(NumberedTransactions.decode) ?? 0
                )
            }
            // Every snapshot is whole: the stored count equals the numbered entries in it.
            guard entries == 0 || UInt64(entries - 1) == recorded else {
                fail("snapshot with \(entries - 1) entries recorded \(recorded)")
            }
            reads += 1
            largestMap = max(largestMap, environment.info.mapSize)
        }
        say("reads \(reads) map \(largestMap)")

    case "fork-check":
        let (environment, table) = try openNumberedStore(directory)
        try environment.write { txn in try txn.put([1], for: [1], in: table) }
        let child = fork()
        if child == 0 {
            do {
                _ = try environment.read { txn in try txn.get([1], in: table) }
                _exit(2)  // the inherited environment must be refused
            } catch let error as StorageError where error.code == .usedAfterFork {
                // Opening the store again in the child works.
                do {
                    let (reopened, table) = try openNumberedStore(directory)
                    let value = try reopened.read { txn in try txn.get([1], in: table) }
                    _exit(value == [1] && reopened !== environment ? 0 : 3)
                } catch {
                    _exit(4)
                }
            } catch {
                _exit(5)
            }
        }
        var status: Int32 = 0
        waitpid(child, &status, 0)
        say("child \(status >> 8 & 0xFF)")
        // The parent's environment is untouched by the child.
        let value = try environment.read { txn in try txn.get([1], in: table) }
        say(value == [1] ? "parent ok" : "parent broken")

    case "create":
        umask(mode_t(arguments[3], radix: 8)!)
        let environment = try LMDBEnvironment.create(StorageConfiguration(path: directory))
        let table = try environment.openTable("t", create: true)!
        try environment.write { txn in try txn.put([1], for: [1], in: table) }
        try environment.backup(to: directory + ".backup")
        say("created")

    case "import":
        let count = Int(arguments[3])!, chunk = Int(arguments[4])!
        let container = try ModelContainer(
            for: ImportedReading.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: directory)))
        let context = ModelContext(container)
        let start = Date()
        var saved = 0
        while saved < count {
            // Each chunk's models go out of scope after its save; only the context could keep them.
            for n in saved..<min(saved + chunk, count) {
                context.insert(ImportedReading(sensor: n % 97, value: Double(n) * 0.5, label: "reading \(n)"))
            }
            try context.save()
            saved = min(saved + chunk, count)
        }
        let stored = try context.fetchCount(FetchDescriptor<ImportedReading>())
        say("imported \(stored) peak \(peakResidentBytes()) seconds \(Date().timeIntervalSince(start))")

    case "planet-writer":
        let seconds = Double(arguments[3])!
        let container = try ModelContainer(
            for: Schema(versionedSchema: HelperPlanetSchemaV1.self),
            configurations: ModelConfiguration(url: URL(fileURLWithPath: directory)))
        let context = ModelContext(container)
        let end = Date().addingTimeInterval(seconds)
        var n = 0
        while Date() < end {
            n += 1
            context.insert(HelperPlanetSchemaV1.Planet(name: "Far \(n)", moons: n % 3))
            try context.save()
            say("ack \(n)")
        }
        say("done \(n)")

    case "ledger":
        let seconds = Double(arguments[3])!
        let container = try ModelContainer(
            for: Tally.self, TallyHolder.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: directory)))
        let context = ModelContext(container)
        var mine: [Tally] = []
        let end = Date().addingTimeInterval(seconds)
        var n = 0
        while Date() < end {
            n += 1
            try ledgerSave(context, n, &mine, prefix: "helper")
            say("ack \(n)")
        }
        say("done \(n)")

    case "tally-update":
        let label = arguments[3], amount = arguments[4]
        let container = try ModelContainer(
            for: Tally.self, TallyHolder.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: directory)))
        let context = ModelContext(container)
        if arguments.count > 5 { context.author = arguments[5] }
        guard let tally = try context.fetch(FetchDescriptor<Tally>(predicate: #Predicate { $0.label == label })).first
        else { fail("no tally \(label)") }
        if amount == "delete" { context.delete(tally) } else { tally.amount = Int(amount)! }
        try context.save()
        say("saved")

    case "ledger-reader":
        let container = try ModelContainer(
            for: Tally.self, TallyHolder.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: directory)))
        var n = 0
        while true {
            n += 1
            let context = ModelContext(container)
            let tallies = try context.fetch(FetchDescriptor<Tally>())
            say("read \(n) sum \(tallies.reduce(0) { $0 + $1.amount }) count \(tallies.count)")
        }

    case "fault-save":
        FaultWorkload.run(arguments)

    case "damage-template":
        DamageWorkload.template(arguments)

    case "damage-read":
        DamageWorkload.read(arguments)

    case "disk-full":
        DiskFullWorkload.run(arguments)

    case "load":
        LoadWorkload.run(arguments)

    case "durable-saves":
        DurabilityWorkload.run(arguments)

    case "sync-client":
        SyncWorkload.run(arguments)

    default:
        fail("unknown mode \(mode)")
    }
} catch {
    fail("\(error)")
}
