// Views written as SwiftData apps write them, type-checked against Cairn and the SwiftUI
// stand-in by Scripts/typecheck-swiftui: the forms of `@Query` apps write, with and without
// sections.
import Cairn
import Foundation
import SwiftUI

@Model final class Book {
    var title: String
    var genre: String
    var series: String?
    var published: Date?
    init(title: String, genre: String) {
        self.title = title
        self.genre = genre
    }
}

@MainActor struct Shelf: View {
    @Query var all: [Book]
    @Query private var privateAll: [Book]
    @Query() var parenthesised: [Book]
    @Query(sort: \.title) var byTitle: [Book]
    @Query(sort: \.title, order: .reverse) var reversed: [Book]
    @Query(sort: \.published) var byDate: [Book]
    @Query(filter: #Predicate { $0.title != "" }, sort: [SortDescriptor(\.title)]) var filtered: [Book]
    @Query(sort: \Book.published, order: .reverse, animation: .default) var byDateAnimated: [Book]
    @Query(filter: #Predicate<Book> { $0.genre == "Poetry" }, sort: [SortDescriptor(\Book.title)]) var poems: [Book]
    @Query(FetchDescriptor<Book>(), transaction: Transaction()) var withTransaction: [Book]
    @Query(FetchDescriptor<Book>(), animation: .default) var withAnimation: [Book]
    @Query(sort: [SortDescriptor(\Book.title)], sectionBy: \Book.genre) var sections: SectionedResults<Book, String>
    @Query(sort: \Book.title, sectionBy: \Book.series) var bySeries: SectionedResults<Book, String>
    @Query(sort: \Book.title, sectionBy: \Book.genre) var flat: [Book]
    @Query(sort: \.title, sectionBy: \.genre) var unqualified: SectionedResults<Book, String>
    @Query(FetchDescriptor<Book>(), animation: .default, sectionBy: \Book.genre) var animatedSections: SectionedResults<Book, String>

    func use() -> Int {
        all.count + byTitle.count + sections.count + flat.count + _flat.sections.count + bySeries.count
    }
}

@MainActor struct Sectioned: View {
    @Query(sort: \Book.title, sectionBy: \Book.genre) var byGenre: SectionedResults<Book, String>
    func titles() -> [String] { byGenre.flatMap { $0.map(\.title) } }
    func context() -> ModelContext { _byGenre.modelContext }
}
