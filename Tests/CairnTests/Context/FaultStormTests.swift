import Foundation
import Testing

@testable import Cairn

/// The fault-storm (N+1) warning: a relationship loaded model by model in a loop is logged once,
/// with the prefetching key path that fixes it; a fetch that prefetches it says nothing.
@Suite struct FaultStormTests {
    /// A library of `count` books, each with its own author, and a fresh context on it.
    private func library(count: Int, threshold: Int?, in directory: TemporaryDirectory) throws -> ModelContext {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Storm.store")))
        configuration.faultStormThreshold = threshold
        let container = try ModelContainer(
            for: LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self,
            configurations: configuration)
        let context = ModelContext(container)
        for index in 0..<count {
            let book = LibraryBook(isbn: "storm-\(index)", title: "Book \(index)")
            book.author = LibraryAuthor(firstName: "A", lastName: "Author \(index)", email: "a\(index)@example.com")
            context.insert(book)
        }
        try context.save()
        return ModelContext(container)
    }

    private func warnings(about text: String) -> [String] {
        LogCapture.messages.filter { $0.level == .warning && $0.text.contains(text) }.map(\.text)
    }

    @Test func aLoopThatFaultsARelationshipPerModelIsLoggedOnceWithTheFix() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        // 37 is this test's own threshold: the warning's count (38) tells it from other tests' warnings.
        let context = try library(count: 120, threshold: 37, in: directory)
        let books = try context.fetch(FetchDescriptor<LibraryBook>(sortBy: [SortDescriptor(\.isbn)]))
        for book in books { _ = book.author?.lastName }
        let logged = warnings(about: "LibraryBook.author was loaded for one LibraryBook at a time, 38 times")
        #expect(logged.count == 1, "one warning for the whole loop: \(logged)")
        #expect(logged.first?.contains("relationshipKeyPathsForPrefetching = [\\LibraryBook.author]") == true)
        // A second loop over the same relationship, in another context of the container, says nothing new.
        let again = ModelContext(context.container)
        for book in try again.fetch(FetchDescriptor<LibraryBook>()) { _ = book.author }
        #expect(warnings(about: "LibraryBook.author was loaded for one LibraryBook at a time, 38 times").count == 1)
    }

    @Test func aToManyRelationshipFaultedPerModelIsNamedToo() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        let context = try library(count: 60, threshold: 41, in: directory)
        for author in try context.fetch(FetchDescriptor<LibraryAuthor>()) { _ = author.books.count }
        let logged = warnings(about: "LibraryAuthor.books was loaded for one LibraryAuthor at a time, 42 times")
        #expect(logged.count == 1 && logged[0].contains("[\\LibraryAuthor.books]"), "\(logged)")
    }

    @Test func aFetchThatPrefetchesTheRelationshipRaisesNoWarning() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        let context = try library(count: 120, threshold: 43, in: directory)
        var descriptor = FetchDescriptor<LibraryBook>()
        descriptor.relationshipKeyPathsForPrefetching = [\.author]
        let books = try context.fetch(descriptor)
        for book in books { _ = book.author?.lastName }
        #expect(books.count == 120 && books.allSatisfy { $0.author != nil })
        #expect(warnings(about: "44 times").isEmpty)
        // The same loop without prefetching, in a fresh context, is a storm.
        let fresh = ModelContext(context.container)
        for book in try fresh.fetch(FetchDescriptor<LibraryBook>()) { _ = book.author?.lastName }
        #expect(warnings(about: "LibraryBook.author was loaded for one LibraryBook at a time, 44 times").count == 1)
    }

    /// A shelf of 150 items, stored with `threshold`, and a fresh context on it. Models of this
    /// test alone: no other test's storm can name them.
    private func shelf(_ name: String, threshold: Int?, in directory: TemporaryDirectory) throws -> ModelContext {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child(name)))
        configuration.faultStormThreshold = threshold
        let container = try ModelContainer(for: QuietShelf.self, QuietItem.self, configurations: configuration)
        let context = ModelContext(container)
        let shelf = QuietShelf(name: "shelf")
        context.insert(shelf)
        for index in 0..<150 {
            let item = QuietItem(title: "\(name) \(index)")
            item.shelf = shelf
            context.insert(item)
        }
        try context.save()
        return ModelContext(container)
    }

    @Test func noThresholdLogsNothing() throws {
        LogCapture.install()
        let directory = TemporaryDirectory()
        let quiet = try shelf("Quiet.store", threshold: nil, in: directory)
        for item in try quiet.fetch(FetchDescriptor<QuietItem>()) { _ = item.shelf?.name }
        #expect(warnings(about: "QuietItem.shelf").isEmpty)
        // The same loop with the debug default (100) is a storm: the models can make one.
        let noisy = try shelf("Noisy.store", threshold: 100, in: directory)
        for item in try noisy.fetch(FetchDescriptor<QuietItem>()) { _ = item.shelf?.name }
        #expect(warnings(about: "QuietItem.shelf was loaded for one QuietItem at a time, 101 times").count == 1)
    }

    @Test func theRuleCountsLoadsWithoutAPauseAndReportsEachRelationshipOnce() {
        let reports = ReportedNames()
        var detector = FaultStormDetector(threshold: 3, reports: reports)
        let start = ContinuousClock.now
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
        // Three loads, a pause longer than the rule's, three more: two storms of three, neither past 3.
        for time in [0, 10, 20, 400, 410, 420] {
            #expect(detector.noteLoad(of: "author", owner: "Book", now: at(time)) == nil)
        }
        // Another relationship counts on its own.
        #expect(detector.noteLoad(of: "chapters", owner: "Book", now: at(425)) == nil)
        let warning = detector.noteLoad(of: "author", owner: "Book", now: at(430))
        #expect(warning?.contains("Book.author was loaded for one Book at a time, 4 times in 30 ms") == true)
        #expect(warning?.contains("relationshipKeyPathsForPrefetching = [\\Book.author]") == true)
        #expect(detector.noteLoad(of: "author", owner: "Book", now: at(440)) == nil, "one warning per storm")
        // Reported once per container: another context's detector sharing the reports stays quiet.
        var other = FaultStormDetector(threshold: 0, reports: reports)
        #expect(other.noteLoad(of: "author", owner: "Book", now: at(500)) == nil)
        #expect(other.noteLoad(of: "chapters", owner: "Book", now: at(500)) != nil)
    }
}

@Model final class QuietShelf {
    var name: String
    var items: [QuietItem] = []
    init(name: String) { self.name = name }
}

@Model final class QuietItem {
    var title: String
    var shelf: QuietShelf?
    init(title: String) { self.title = title }
}
