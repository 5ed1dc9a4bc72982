import ArgumentParser
import Cairn
import Foundation

/// `cairn demo [path]`: creates a store, saves a small library, reopens it, queries it and prints
/// what it finds.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a store, save a small library, reopen it, query it, print what it finds.")

    @Argument(help: "Where to create the store (a new directory). Defaults to a temporary one, removed afterwards.")
    var path: String?

    func run() throws {
        let directory =
            path
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("cairn-demo-\(UUID().uuidString)").path
        guard !FileManager.default.fileExists(atPath: directory) else {
            throw ValidationError("Something already exists at \(directory). Give a path where nothing is, or omit it.")
        }
        defer { if path == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let url = URL(fileURLWithPath: directory)
        let schema = Schema([Author.self, Book.self, Chapter.self, Tag.self])

        print("Creating a store at \(directory)")
        do {
            let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            try saveLibrary(into: context)
            print(
                "Saved \(try context.fetchCount(FetchDescriptor<Author>())) authors, "
                    + "\(try context.fetchCount(FetchDescriptor<Book>())) books, "
                    + "\(try context.fetchCount(FetchDescriptor<Chapter>())) chapters and "
                    + "\(try context.fetchCount(FetchDescriptor<Tag>())) tags in one transaction.")
        }

        print("\nReopening the store with a new container and context")
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)

        print("\nAuthors by name, with their books in the order they were given:")
        for author in try context.fetch(FetchDescriptor<Author>(sortBy: [SortDescriptor(\.name)])) {
            print(
                "  \(author.name) (born \(author.born)): \(author.books.map { "\($0.title) (\($0.year))" }.joined(separator: ", "))"
            )
        }

        print("\nBooks published after 1850, oldest first:")
        let after1850 = FetchDescriptor<Book>(
            predicate: #Predicate { $0.year > 1850 }, sortBy: [SortDescriptor(\.year)])
        for book in try context.fetch(after1850) {
            print("  \(book.year)  \(book.title) by \(book.author?.name ?? "unknown")")
        }

        let classic = "classic"
        if let tag = try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == classic })).first {
            print("\nBooks tagged '\(tag.name)': \(tag.books.map(\.title).sorted().joined(separator: ", "))")
        }

        let title = "Middlemarch"
        if let book = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == title })).first {
            print("\nChapters of \(book.title), in order:")
            for chapter in book.chapters { print("  \(chapter.number). \(chapter.title)") }
        }

        let name = "George Eliot"
        if let eliot = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.name == name })).first {
            context.delete(eliot)
            try context.save()
            print("\nDeleted \(name); her books and their chapters went with her (cascade):")
            print(
                "  \(try context.fetchCount(FetchDescriptor<Author>())) authors, "
                    + "\(try context.fetchCount(FetchDescriptor<Book>())) books, "
                    + "\(try context.fetchCount(FetchDescriptor<Chapter>())) chapters left; the tags stay: "
                    + "\(try context.fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name) (\($0.books.count))" }.joined(separator: ", "))"
            )
        }
        print("\nDone.")
    }

    private func saveLibrary(into context: ModelContext) throws {
        let classic = Tag(name: "classic")
        let novel = Tag(name: "novel")
        let poetry = Tag(name: "poetry")
        let library: [(String, Int, [(String, Int, [String], [Tag])])] = [
            (
                "Jane Austen", 1775,
                [
                    ("Pride and Prejudice", 1813, ["Netherfield", "The Assembly", "Pemberley"], [classic, novel]),
                    ("Emma", 1815, ["Hartfield", "Box Hill"], [classic, novel]),
                ]
            ),
            (
                "George Eliot", 1819,
                [
                    (
                        "Middlemarch", 1871,
                        ["Miss Brooke", "Old and Young", "Waiting for Death", "Three Love Problems"], [classic, novel]
                    ),
                    ("Silas Marner", 1861, ["Raveloe", "The Gold"], [novel]),
                ]
            ),
            (
                "Walt Whitman", 1819,
                [
                    ("Leaves of Grass", 1855, ["Song of Myself"], [classic, poetry])
                ]
            ),
        ]
        for (name, born, books) in library {
            let author = Author(name: name, born: born)
            context.insert(author)
            for (title, year, chapters, tags) in books {
                let book = Book(title: title, year: year)
                book.chapters = chapters.enumerated().map { Chapter(number: $0 + 1, title: $1) }
                book.tags = tags
                author.books.append(book)
            }
        }
        try context.save()
    }
}
