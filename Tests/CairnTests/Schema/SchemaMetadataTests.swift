import Cairn
import Foundation
import Testing

// Models written the way SwiftData's documentation writes them; they must compile unchanged
// against `import Cairn` and describe themselves exactly.

enum BookFormat: String, Codable, CaseIterable {
    case hardcover, paperback, ebook
}

struct BookDimensions: Codable, Hashable {
    var width: Double
    var height: Double
}

@Model
final class LibraryBook {
    @Attribute(.unique) var isbn: String
    @Attribute(originalName: "name") var title: String
    @Attribute(.externalStorage) var cover: Data?
    var publishedAt: Date
    var price: Decimal = 0
    var format: BookFormat = .paperback
    var dimensions: BookDimensions?
    var keywords: [String] = []
    var ratings: [String: Int] = [:]
    var website: URL?
    var identifier: UUID = UUID()
    @Relationship(deleteRule: .cascade, inverse: \LibraryChapter.book) var chapters: [LibraryChapter] = []
    var author: LibraryAuthor?
    @Transient var isSelected = false

    @Transient var chapterCount: Int { chapters.count }

    var summary: String { "\(title) (\(isbn))" }

    init(isbn: String, title: String, publishedAt: Date = .now) {
        self.isbn = isbn
        self.title = title
        self.publishedAt = publishedAt
    }
}

@Model
final class LibraryChapter {
    var title: String
    var number: Int
    var book: LibraryBook?

    init(title: String, number: Int) {
        self.title = title
        self.number = number
    }
}

@Model
final class LibraryAuthor {
    #Unique<LibraryAuthor>([\.email], [\.firstName, \.lastName])
    #Index<LibraryAuthor>([\.lastName], [\.lastName, \.firstName])

    var firstName: String
    var lastName: String
    var email: String
    var books: [LibraryBook] = []
    @Relationship(deleteRule: .deny, minimumModelCount: 0, maximumModelCount: 5) var awards: [LibraryAward] = []

    init(firstName: String, lastName: String, email: String) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
    }
}

@Model
final class LibraryAward {
    var name: String
    var winners: [LibraryAuthor] = []
    init(name: String) { self.name = name }
}

@Model
final class LibraryCategory {
    var name: String
    @Relationship(inverse: \LibraryCategory.parent) var children: [LibraryCategory] = []
    var parent: LibraryCategory?
    init(name: String) { self.name = name }
}

@Suite struct SchemaMetadataTests {
    let schema = Schema([
        LibraryBook.self, LibraryChapter.self, LibraryAuthor.self, LibraryAward.self, LibraryCategory.self,
    ])

    @Test func theSchemaOfSwiftDataStyleModelsIsValid() throws {
        try schema.validate()
        #expect(
            schema.entities.map(\.name) == [
                "LibraryBook", "LibraryChapter", "LibraryAuthor", "LibraryAward", "LibraryCategory",
            ])
        #expect(schema.version == Schema.Version(1, 0, 0))
    }

    @Test func attributesCarryTheirTypesOptionsAndDefaults() throws {
        let book = try #require(schema.entity(for: LibraryBook.self))
        let names = book.storedProperties.map(\.name)
        #expect(
            names == [
                "isbn", "title", "cover", "publishedAt", "price", "format", "dimensions", "keywords",
                "ratings", "website", "identifier", "chapters", "author",
            ])
        let isbn = try #require(book.attributesByName["isbn"])
        #expect(isbn.isUnique && !isbn.isOptional && isbn.valueType == String.self && isbn.options == [.unique])
        let title = try #require(book.attributesByName["title"])
        #expect(title.originalName == "name" && title.options.isEmpty && !title.isUnique)
        let cover = try #require(book.attributesByName["cover"])
        #expect(cover.options == [.externalStorage] && cover.isOptional && cover.valueType == Data?.self)
        #expect(book.attributesByName["publishedAt"]?.defaultValue == nil)
        #expect(book.attributesByName["price"]?.defaultValue as? Decimal == 0)
        #expect(book.attributesByName["format"]?.defaultValue as? BookFormat == .paperback)
        #expect(book.attributesByName["format"]?.valueType == BookFormat.self)
        #expect(book.attributesByName["dimensions"]?.valueType == BookDimensions?.self)
        #expect(book.attributesByName["keywords"]?.defaultValue as? [String] == [])
        #expect(book.attributesByName["ratings"]?.valueType == [String: Int].self)
        #expect(book.attributesByName["website"]?.isOptional == true)
        #expect(book.attributesByName["identifier"]?.valueType == UUID.self)
        #expect(book.uniquenessConstraints == [["isbn"]])
    }

    @Test func transientAndComputedPropertiesAreNotStored() throws {
        let book = try #require(schema.entity(for: LibraryBook.self))
        let selected = try #require(book.attributesByName["isSelected"])
        #expect(selected.isTransient && selected.valueType == Bool.self)
        #expect(!book.storedProperties.contains { $0.name == "isSelected" })
        #expect(book.attributesByName["chapterCount"] == nil, "a computed @Transient is ignored")
        #expect(book.attributesByName["summary"] == nil, "computed properties are not properties of the entity")
        #expect(book.properties.count == 14)
    }

    @Test func relationshipsKnowTheirDestinationInverseAndRules() throws {
        let book = try #require(schema.entity(for: LibraryBook.self))
        let chapters = try #require(book.relationshipsByName["chapters"])
        #expect(chapters.destination == "LibraryChapter" && chapters.deleteRule == .cascade)
        #expect(!chapters.isToOneRelationship && chapters.inverseName == "book")
        #expect(chapters.inverseKeyPath == \LibraryChapter.book)
        let chapter = try #require(schema.entity(for: LibraryChapter.self))
        let back = try #require(chapter.relationshipsByName["book"])
        #expect(
            back.isToOneRelationship && back.isOptional && back.inverseName == "chapters" && back.deleteRule == .nullify
        )
        // Inferred: LibraryBook.author and LibraryAuthor.books are the only pair between the two.
        #expect(book.relationshipsByName["author"]?.inverseName == "books")
        let author = try #require(schema.entity(for: LibraryAuthor.self))
        #expect(author.relationshipsByName["books"]?.inverseName == "author")
        // Many-to-many, inferred.
        let awards = try #require(author.relationshipsByName["awards"])
        #expect(awards.inverseName == "winners" && awards.deleteRule == .deny)
        #expect(awards.minimumModelCount == nil && awards.maximumModelCount == 5)
        // Self-referential with an explicit inverse.
        let category = try #require(schema.entity(for: LibraryCategory.self))
        #expect(category.relationshipsByName["children"]?.inverseName == "parent")
        #expect(category.relationshipsByName["parent"]?.inverseName == "children")
    }

    @Test func uniquenessConstraintsAndIndexesNameAttributes() throws {
        let author = try #require(schema.entity(for: LibraryAuthor.self))
        #expect(author.uniquenessConstraints == [["email"], ["firstName", "lastName"]])
        #expect(author.indices == [["lastName"], ["lastName", "firstName"]])
    }

    @Test func initialisersWorkAsWrittenAndChangesAreTracked() {
        let book = LibraryBook(isbn: "978-0", title: "Walden")
        #expect(book.title == "Walden" && book.price == 0 && book.format == .paperback && book.keywords.isEmpty)
        #expect(!book.hasChanges, "initial values are not changes")
        book.keywords.append("nature")
        #expect(book.hasChanges && book.keywords == ["nature"])
    }

    @Test func aVersionedSchemaGivesItsModelsAndVersion() throws {
        enum LibraryV2: VersionedSchema {
            static var versionIdentifier: Schema.Version { Schema.Version(2, 1, 0) }
            static var models: [any PersistentModel.Type] {
                [LibraryChapter.self, LibraryBook.self, LibraryAuthor.self, LibraryAward.self]
            }
        }
        enum Plan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [LibraryV2.self] }
            static var stages: [MigrationStage] { [] }
        }
        let schema = Schema(versionedSchema: LibraryV2.self)
        try schema.validate()
        #expect(schema.version == Schema.Version(2, 1, 0) && schema.version > Schema.Version(2, 0, 9))
        #expect(schema.entities.map(\.name) == ["LibraryChapter", "LibraryBook", "LibraryAuthor", "LibraryAward"])
        #expect(Plan.schemas.count == 1 && "\(schema.version)" == "2.1.0")
    }
}
