import Benchmark
import BenchmarkModels
import Cairn
import Foundation

// Cairn's workloads from Docs/Benchmarks.md, at a smaller scale than cairn-compare so that the
// whole suite runs in a few minutes:
//
//   swift package --package-path Benchmarks benchmark
//
// Opening stores and filling the ones a workload needs are not measured. A workload that writes
// gets a new store in a new temporary directory in every iteration, removed after it. Besides
// package-benchmark's metrics, each benchmark reports `items/s`: models written or read per
// second, the figure cairn-compare prints.

/// Models written or read per second in the measured part of one iteration.
let itemsPerSecond = BenchmarkMetric.custom("items/s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .peakMemoryResident, .mallocCountTotal, itemsPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 5
    )

    let authors = 10_000
    let fresh = (0..<Int64(authors)).map { AuthorValues($0) }
    let changed = changedHalf(authors)

    Benchmark("W1 insert+save 10k authors") { benchmark in
        try withScratchStore("w1-insert") { container in
            let context = ModelContext(container)
            try measure(benchmark, items: fresh.count) {
                for value in fresh { context.insert(value.model) }
                try context.save()
            }
        }
    }

    Benchmark("W1 batch upsert 10k authors") { benchmark in
        try withScratchStore("w1-upsert") { container in
            let context = ModelContext(container)
            try measure(benchmark, items: fresh.count) {
                let report = try context.upsert(fresh.lazy.map(\.model))
                precondition(report.insertedCount == fresh.count)
            }
        }
    }

    Benchmark("W2 batch upsert 10k existing, half changed") { benchmark in
        try withScratchStore("w2-upsert") { container in
            try insertAuthors(fresh, into: container)
            let context = ModelContext(container)
            try measure(benchmark, items: changed.count) {
                let report = try context.upsert(changed.lazy.map(\.model))
                precondition(report.updatedCount == changed.count / 2)
            }
        }
    }

    Benchmark("W3 insert 1k authors + 10k books") { benchmark in
        try withScratchStore("w3-insert") { container in
            let context = ModelContext(container)
            try measure(benchmark, items: 1_000 + 10_000) {
                try insertLibrary(authors: 1_000, booksPerAuthor: 10, into: context)
            }
        }
    }

    let library = scratchURL("w4-library")
    Benchmark("W4 fetch 1k authors + titles with prefetch") { benchmark in
        let container = try CairnStore.container(library)
        let context = ModelContext(container)
        try measure(benchmark, items: 1_000 + 10_000) {
            var descriptor = FetchDescriptor<Author>()
            descriptor.relationshipKeyPathsForPrefetching = [\.books]
            var (books, titleLength) = (0, 0)
            for author in try context.fetch(descriptor) {
                for book in author.books {
                    books += 1
                    titleLength += book.title.utf8.count
                }
            }
            precondition(books == 10_000)
            blackHole(titleLength)
        }
    } setup: {
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let context = ModelContext(try CairnStore.container(library))
        try insertLibrary(authors: 1_000, booksPerAuthor: 10, into: context)
    } teardown: {
        try? FileManager.default.removeItem(at: library)
    }

    let catalog = scratchURL("w5-catalog")
    Benchmark("W5 fetch 10k authors, read all attributes") { benchmark in
        let container = try CairnStore.container(catalog)
        let context = ModelContext(container)
        try measure(benchmark, items: fresh.count) {
            var checksum = 0.0
            let fetched = try context.fetch(FetchDescriptor<Author>())
            precondition(fetched.count == fresh.count)
            for author in fetched {
                checksum += Double(author.id) + author.score + author.createdAt.timeIntervalSinceReferenceDate
                checksum += Double(author.name.utf8.count + author.email.utf8.count)
            }
            blackHole(checksum)
        }
    } setup: {
        try FileManager.default.createDirectory(at: catalog, withIntermediateDirectories: true)
        try insertAuthors(fresh, into: try CairnStore.container(catalog))
    } teardown: {
        try? FileManager.default.removeItem(at: catalog)
    }
}

// MARK: - Stores

enum CairnStore {
    /// The container for the store in `directory`, created if needed.
    static func container(_ directory: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Author.self, Book.self,
            configurations: ModelConfiguration(url: directory.appendingPathComponent("Bench.store")))
    }
}

/// A path for a new directory under the temporary directory (not created).
func scratchURL(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
        "cairn-benchmarks-\(getpid())-\(name)-\(UUID().uuidString.prefix(8))")
}

/// Runs `body` with a container for a new store in a new directory, then removes the directory.
func withScratchStore(_ name: String, _ body: (ModelContainer) throws -> Void) throws {
    let directory = scratchURL(name)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(try CairnStore.container(directory))
}

// MARK: - Workloads

/// Inserts the authors in one save, in a context of its own.
func insertAuthors(_ values: [AuthorValues], into container: ModelContainer) throws {
    let context = ModelContext(container)
    for value in values { context.insert(value.model) }
    try context.save()
}

/// W3's data: `authors` authors and `booksPerAuthor` books for each, the books given to the
/// authors round-robin (book `i` to author `i % authors`), saved once.
func insertLibrary(authors: Int, booksPerAuthor: Int, into context: ModelContext) throws {
    let models = (0..<Int64(authors)).map { AuthorValues($0).model }
    for author in models { context.insert(author) }
    for index in 0..<authors * booksPerAuthor {
        let id = Int64(index)
        let book = Book(
            id: id, title: "Book \(String(id, radix: 36))".padding(toLength: 24, withPad: "·", startingAt: 0),
            year: 1900 + index % 125)
        context.insert(book)
        book.author = models[index % authors]
    }
    try context.save()
}

/// Measures `body` alone (what comes before and after it in the iteration is not measured) and
/// reports `items / seconds` as ``itemsPerSecond``.
func measure(_ benchmark: Benchmark, items: Int, _ body: () throws -> Void) throws {
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    benchmark.stopMeasurement()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    benchmark.measurement(itemsPerSecond, Int(Double(items) / seconds))
}
