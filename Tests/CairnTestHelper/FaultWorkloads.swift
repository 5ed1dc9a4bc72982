// The helper's workloads for the I/O-fault, damage and disk-full tests. Each prints one line per
// event, flushed: "ack N" once save N returned, "state N <canonical>" when asked for, and
// "error <phase> <Type>.<code> <message>" when a call throws (then it exits with status 0, so a
// non-zero status or a signal always means the process itself failed).
import Cairn
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The recovery the container reports when opening repaired a damaged meta page (and, if it
/// says so, skipped the damaged newest commit), or nil when it opened the store as it was.
func recoveryNote(_ container: ModelContainer) -> String? {
    container.recovery.map { "\($0.openedTransaction) skipped \($0.skippedTransaction.map(String.init) ?? "none")" }
}

/// Runs `body`, and on a thrown error prints it with the phase and exits with status 0.
func step<T>(_ phase: String, _ body: () throws -> T) -> T {
    do {
        return try body()
    } catch {
        say("error \(phase) \(describe(error))")
        exit(0)
    }
}

enum FaultWorkload {
    /// Save `n`: a new shelf with `volumes` new volumes on it; from the second save on, the
    /// previous save's first volume moves to the new shelf (a relationship change on both sides
    /// and an index update), its second volume is deleted, and every third save deletes the shelf
    /// from two saves before (its volumes' shelf becomes nil). All of it is one save.
    static func save(_ n: Int, volumes: Int, bodyLength: Int, churn: Bool, in context: ModelContext) throws {
        let shelf = FaultShelf(key: "s\(n)", name: "shelf \(n)")
        context.insert(shelf)
        for i in 0..<volumes {
            let volume = FaultVolume(key: "v\(n)-\(i)", rank: n * 1000 + i, body: body(n, i, bodyLength))
            context.insert(volume)
            volume.shelf = shelf
        }
        if churn && n > 1 {
            if let moved = try fetchVolume("v\(n - 1)-0", in: context) {
                moved.shelf = shelf
                moved.rank += 500
            }
            if let gone = try fetchVolume("v\(n - 1)-1", in: context) { context.delete(gone) }
            if n % 3 == 0, let old = try fetchShelf("s\(n - 2)", in: context) { context.delete(old) }
        }
        try context.save()
    }

    static func body(_ n: Int, _ i: Int, _ length: Int) -> String {
        let letter = Character(UnicodeScalar(UInt8(ascii: "a") + UInt8((n * 7 + i) % 26)))
        return String(repeating: letter, count: length)
    }

    static func fetchVolume(_ key: String, in context: ModelContext) throws -> FaultVolume? {
        try context.fetch(FetchDescriptor<FaultVolume>(predicate: #Predicate { $0.key == key })).first
    }

    static func fetchShelf(_ key: String, in context: ModelContext) throws -> FaultShelf? {
        try context.fetch(FetchDescriptor<FaultShelf>(predicate: #Predicate { $0.key == key })).first
    }

    static func printState(_ n: Int, _ container: ModelContainer) {
        let canonical = step("state") { try FaultContents.canonical(ModelContext(container)) }
        say("state \(n) \(canonical)")
    }

    /// `fault-save <store> <first> <count> <volumes> <body-length>`: opens (or creates) the store
    /// and makes saves `first ..< first + count`. With CAIRN_FAULT_STATES=1 it also prints the
    /// store's contents before the first save and after each one.
    static func run(_ arguments: [String]) {
        let path = arguments[2]
        let first = Int(arguments[3])!, count = Int(arguments[4])!
        let volumes = Int(arguments[5])!, bodyLength = Int(arguments[6])!
        let printsStates = ProcessInfo.processInfo.environment["CAIRN_FAULT_STATES"] == "1"
        let container = step("open") { try FaultContents.container(path) }
        say("opened")
        if printsStates { printState(first - 1, container) }
        let context = ModelContext(container)
        for n in first..<first + count {
            step("save \(n)") { try save(n, volumes: volumes, bodyLength: bodyLength, churn: true, in: context) }
            say("ack \(n)")
            if printsStates { printState(n, container) }
        }
        say("done")
    }
}

enum DamageWorkload {
    /// `damage-template <store> <commits>`: builds the damage tests' template store, printing
    /// "state N <canonical>" after each commit. Bodies vary in length, so some records span
    /// several pages; deletions keep the free-page list in use.
    static func template(_ arguments: [String]) {
        let path = arguments[2], commits = Int(arguments[3])!
        let container = step("open") { try FaultContents.container(path) }
        let context = ModelContext(container)
        for n in 1...commits {
            let bodyLength = [40, 300, 2_000, 9_000][n % 4]
            step("save \(n)") {
                try FaultWorkload.save(n, volumes: 4, bodyLength: bodyLength, churn: true, in: context)
            }
            FaultWorkload.printState(n, container)
        }
        say("done")
    }

    /// `damage-read <store>`: opens a possibly damaged store, prints "recovery <note>" if the
    /// container reports one, "contents <canonical>" (or the first pending load error, when
    /// reading them recorded one), one "problem <text>" per broken invariant,
    /// then saves once more and reads that save back ("saved", "read back").
    static func read(_ arguments: [String]) {
        let path = arguments[2]
        let container = step("open") { try FaultContents.container(path) }
        if let note = recoveryNote(container) { say("recovery \(note)") }
        let context = ModelContext(container)
        // A value that cannot be loaded reads as its default and is reported through
        // `pendingLoadErrors` (the policy for getters, which cannot throw): an app that checks it
        // after reading is told, so the read counts as a typed error, not as data.
        let canonical = step("fetch") { () throws -> String in
            let contents = try FaultContents.canonical(context)
            if let failure = context.pendingLoadErrors.first { throw failure }
            return contents
        }
        say("contents \(canonical)")
        for problem in step("check", { try FaultContents.problems(context) }) { say("problem \(problem)") }
        let shelf = FaultShelf(key: "after-damage", name: "written after opening")
        context.insert(shelf)
        step("save") { try context.save() }
        say("saved")
        let found = step("read back") {
            try FaultWorkload.fetchShelf("after-damage", in: ModelContext(container))
        }
        say(found?.name == "written after opening" ? "read back" : "problem the save after opening is not there")
    }
}

enum DiskFullWorkload {
    /// `disk-full <store> <how> <body-length> <limit-bytes> [<filler>]`: saves one volume of
    /// `body-length` bytes per save until a save fails, then frees space and saves again in the
    /// same context without reopening. `how` is `rlimit` (RLIMIT_FSIZE, SIGXFSZ at its default),
    /// `rlimit-ignored` (SIGXFSZ ignored) or `filler` (the store is on a small file system and
    /// `filler` is a file whose removal frees space). Prints "ack N", "error save N …",
    /// "freed", then "ack N" again for the retried save and "ack N+1" for one more.
    static func run(_ arguments: [String]) {
        let path = arguments[2], how = arguments[3]
        let bodyLength = Int(arguments[4])!, limit = Int(arguments[5])!
        let container = step("open") { try FaultContents.container(path) }
        let context = ModelContext(container)
        // The first save happens before the limit, so the store exists when the limit bites.
        step("save 1") { try FaultWorkload.save(1, volumes: 1, bodyLength: 100, churn: false, in: context) }
        say("ack 1")
        switch how {
        case "rlimit", "rlimit-ignored":
            var bound = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t.max)
            guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &bound) == 0 else { fail("setrlimit") }
            if how == "rlimit-ignored" { signal(SIGXFSZ, SIG_IGN) }
        case "filler":
            break
        default:
            fail("unknown way to fill the disk: \(how)")
        }
        var n = 1
        var failure: (any Error)?
        // A bound on the loop, so a limit that never bites ends the run instead of filling the disk.
        while failure == nil && n < 100_000 && n * bodyLength < 256 << 20 {
            n += 1
            do {
                try FaultWorkload.save(n, volumes: 1, bodyLength: bodyLength, churn: false, in: context)
                say("ack \(n)")
            } catch {
                failure = error
            }
        }
        guard let failure else {
            say("error save none no save failed after \(n) saves")
            exit(0)
        }
        say("error save \(n) \(describe(failure))")
        switch how {
        case "filler":
            guard unlink(arguments[6]) == 0 else { fail("unlink \(arguments[6])") }
        default:
            var bound = rlimit(rlim_cur: rlim_t.max, rlim_max: rlim_t.max)
            guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &bound) == 0 else { fail("setrlimit") }
        }
        say("freed")
        // The failed save's changes are still pending in the context: saving again retries them.
        step("resume \(n)") { try context.save() }
        say("ack \(n)")
        step("save \(n + 1)") {
            try FaultWorkload.save(n + 1, volumes: 1, bodyLength: 100, churn: false, in: context)
        }
        say("ack \(n + 1)")
        say("done")
    }
}
