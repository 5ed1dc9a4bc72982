import Foundation
import Testing

@testable import Cairn

/// A Codable value that nests as deep as it is asked to.
indirect enum HostileNesting: Codable, Sendable {
    case leaf
    case node(HostileNesting)

    static func nested(_ depth: Int) -> HostileNesting {
        var value = HostileNesting.leaf
        for _ in 0..<depth { value = .node(value) }
        return value
    }
}

/// A Codable value whose `init(from:)` refuses what its `encode(to:)` writes for 13.
struct HostileRefusing: Codable, Sendable {
    var number: Int

    init(_ number: Int) { self.number = number }

    init(from decoder: any Decoder) throws {
        number = try decoder.singleValueContainer().decode(Int.self)
        guard number != 13 else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "13 is refused"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(number)
    }
}

@Model final class HostileShelf {
    @Attribute(.unique) var name: String
    @Relationship(inverse: \HostileItem.shelf) var items: [HostileItem] = []

    init(name: String) { self.name = name }
}

@Model final class HostileItem {
    @Attribute(.unique) var code: String
    var refusing: HostileRefusing = HostileRefusing(0)
    var shelf: HostileShelf?

    init(code: String, refusing: HostileRefusing = HostileRefusing(0)) {
        self.code = code
        self.refusing = refusing
    }
}

@Model final class HostileDocument {
    var body: HostileNesting = HostileNesting.leaf

    init(body: HostileNesting) { self.body = body }
}

/// Values nobody can free without recursing as deep as they nest, kept alive for the whole run.
nonisolated(unsafe) private var keptNestings: [HostileNesting] = []
private let keptNestingsLock = NSLock()

/// Hostile input (issue 39): no public call traps, whatever the arguments or the stored values.
@Suite struct HostileInputRegressionTests {
    func container(_ directory: TemporaryDirectory) throws -> ModelContainer {
        try makeContainer(HostileShelf.self, HostileItem.self, HostileDocument.self, in: directory, named: "Hostile.store")
    }

    // Bug: a generated getter of a model whose context was gone found no loader and stopped the
    // process. Symptom: reading a property or relationship not yet loaded, of a model kept after
    // its context was released, trapped ("belongs to no context that could load it"). Fix: the
    // property reads as its placeholder, as the failed-load policy says, and a warning is logged.
    @Test func readingAPropertyOfAModelWhoseContextIsGoneReturnsPlaceholders() throws {
        let container = try container(TemporaryDirectory())
        let id: PersistentIdentifier
        do {
            let context = ModelContext(container)
            let shelf = HostileShelf(name: "A")
            shelf.items = [HostileItem(code: "1")]
            context.insert(shelf)
            try context.save()
            id = shelf.persistentModelID
        }
        var fault: HostileShelf?
        do {
            let context = ModelContext(container)
            fault = context.model(for: id) as? HostileShelf
        }
        let shelf = try #require(fault)
        #expect(shelf.items.isEmpty)
        #expect(shelf.name == "")
    }

    // Bug: `fetch(_:batchSize:)`, `fetchIdentifiers(_:batchSize:)`, `enumerate(_:batchSize:)` and
    // `upsert(_:chunkSize:)` stopped the process on a count of zero or less (a precondition).
    // Symptom: a batch size computed from user input crashed the app. Fix: a typed error
    // (`FetchError.invalidArgument`, `SaveError.invalidArgument`) naming the argument.
    @Test(arguments: [0, -1, Int.min])
    func batchAndChunkSizesBelowOneAreTypedErrors(size: Int) throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        context.insert(HostileShelf(name: "A"))
        try context.save()
        let all = FetchDescriptor<HostileShelf>()
        let isInvalidFetch = { (error: any Error) in (error as? FetchError)?.code == .invalidArgument }
        #expect { _ = try context.fetch(all, batchSize: size) } throws: { isInvalidFetch($0) }
        #expect { _ = try context.fetchIdentifiers(all, batchSize: size) } throws: { isInvalidFetch($0) }
        #expect { try context.enumerate(all, batchSize: size) { _ in } } throws: { isInvalidFetch($0) }
        #expect {
            _ = try context.upsert([HostileShelf(name: "B")], chunkSize: size)
        } throws: { ($0 as? SaveError)?.code == .invalidArgument }
        #expect(try context.fetchCount(all) == 1, "nothing was written")
    }

    /// The largest sizes are accepted: a batch's end is computed without `position + batchSize`,
    /// which could overflow, and `upsert` reserves room for at most 65,536 models per chunk.
    @Test func theLargestBatchAndChunkSizesWork() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        let report = try context.upsert([HostileShelf(name: "A"), HostileShelf(name: "B")], chunkSize: .max)
        #expect(report.insertedRows.count == 2)
        var names: [String] = []
        try context.enumerate(FetchDescriptor<HostileShelf>(sortBy: [SortDescriptor(\.name)]), batchSize: .max) {
            names.append($0.name)
        }
        #expect(names == ["A", "B"])
        let batched = try context.fetch(FetchDescriptor<HostileShelf>(), batchSize: .max)
        #expect(batched.count == 2 && batched[1].name != "")
    }

    // Bug: the error for a value nesting too deep for storage described the value itself, which
    // recursed as deep as the value. Symptom: saving a Codable value nested 50,000 levels deep
    // overflowed the stack while its error was being written. Fix: error messages describe a
    // value's type and a bounded coding path, never the value, and are cut to a bounded length.
    @Test func aValueNestedTooDeepIsATypedErrorWithABoundedMessage() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        let body = HostileNesting.nested(50_000)
        keptNestingsLock.withLock { keptNestings.append(body) }
        context.insert(HostileDocument(body: body))
        var thrown: StorageError?
        do { try context.save() } catch let error as StorageError { thrown = error }
        let error = try #require(thrown)
        #expect(error.code == .unsupportedValue)
        #expect(error.message.count < 2_000, "\(error.message.prefix(300))")
        #expect("\(error)".count < 2_500)
        context.rollback()
    }

    // Bug: the invariant check that runs after each save in debug builds stopped the process
    // when it could not decode a stored value. Symptom: saving a model whose Codable value's
    // init(from:) refuses what was stored (as after an app update) trapped in `swift run` and
    // debug builds. Fix: the check reads only Cairn's own bookkeeping, skips rows it cannot
    // decode, and reports a violation by logging it (and to a test hook), never by trapping.
    @Test func savingAValueItsTypeRefusesToReadDoesNotStopTheProcess() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        context.insert(HostileItem(code: "refused", refusing: HostileRefusing(13)))
        try context.save()
        context.insert(HostileItem(code: "next"))
        try context.save()
        #expect(try context.invariantViolations().isEmpty)
    }

    // Bug: the same check listed a registered model whose row another context or process had
    // deleted as a violation, and stopped the process. Symptom: a save after another context
    // deleted a model this one held trapped in debug builds. Fix: rows the world may remove
    // are not Cairn's bookkeeping; the check no longer asks for them.
    @Test func aModelAnotherContextDeletedDoesNotStopTheNextSave() throws {
        let container = try container(TemporaryDirectory())
        let holder = ModelContext(container)
        let item = HostileItem(code: "gone")
        holder.insert(item)
        try holder.save()
        let other = ModelContext(container)
        let gone = try #require(other.model(for: item.persistentModelID) as? HostileItem)
        other.delete(gone)
        try other.save()
        holder.insert(HostileItem(code: "next"))
        try holder.save()
        #expect(try holder.invariantViolations().isEmpty)
    }

    @Test func aViolationIsReportedToTheHookNotByStopping() throws {
        let container = try container(TemporaryDirectory())
        let context = ModelContext(container)
        context.insert(HostileItem(code: "1"))
        try context.save()
        let store = context.container.store
        try store.environment.write { txn in
            try txn.removeAll(from: store.entities["HostileItem"]!.keys.uniques[0].table)
        }
        let reported = InvariantChecker.collectingReports {
            context.insert(HostileItem(code: "2"))
            try? context.save()
        }
        #expect(reported.contains { $0.contains("is not under its key") })
    }

    // Bug: a maximum size near Int.max made the map's growth round its size past Int.max, which
    // stopped the process at the first save that grew the store. Fix: the rounding clamps; a
    // maximum of zero or less is no room to grow, `maximumSizeReached`.
    @Test(arguments: [Int.max, Int.max - 1, 1 << 62, 0, -1, Int.min])
    func anyMaximumSizeIsALimitNeverATrap(maximum: Int) throws {
        let directory = TemporaryDirectory()
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Hostile.store")))
        configuration.maximumSize = maximum
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: HostileShelf.self, HostileItem.self, HostileDocument.self, configurations: configuration))
            // About 3 MB: the map (1 MiB when created) must grow.
            for n in 0..<3000 { context.insert(HostileItem(code: "\(n)-" + String(repeating: "x", count: 1000))) }
            try context.save()
            #expect(maximum > 0)
        } catch let error as StorageError {
            // No room at all: refused when the store is first written (opening it) or saved.
            #expect(maximum <= 0 && error.code == .maximumSizeReached, "\(error)")
        }
    }
}
