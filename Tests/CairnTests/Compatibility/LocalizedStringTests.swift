import Cairn
import Foundation
import Testing

// Written as SwiftData code is: localized string search and sorting, which compile and behave
// as on Apple platforms (where Foundation supplies them) on every platform.

@Model final class Recipe {
    #Index<Recipe>([\.name], [\.course])
    var name: String
    var course: String
    var subtitle: String?
    init(name: String, course: String, subtitle: String? = nil) {
        self.name = name
        self.course = course
        self.subtitle = subtitle
    }
}

@Suite struct LocalizedStringTests {
    let context: ModelContext

    init() throws {
        context = ModelContext(
            try makeContainer(inMemory: Recipe.self))
        for (name, course, subtitle) in [
            ("Crème brûlée", "dessert", "Custard"), ("Soup 10", "starter", nil), ("soup 2", "starter", "Leek"),
            ("Éclair", "dessert", nil), ("eclair", "dessert", "Small"), ("Apple pie", "dessert", "apple"),
            ("Zabaglione", "dessert", nil),
        ] {
            context.insert(Recipe(name: name, course: course, subtitle: subtitle))
        }
        try context.save()
    }

    private func names(_ descriptor: FetchDescriptor<Recipe>) throws -> [String] {
        try context.fetch(descriptor).map(\.name)
    }

    @Test func localizedStandardContainsIgnoresCaseAndDiacritics() throws {
        let query = "CREME"
        #expect(
            try names(FetchDescriptor(predicate: #Predicate { $0.name.localizedStandardContains(query) })) == [
                "Crème brûlée"
            ])
        let text = "éclair"
        let both = #Predicate<Recipe> { $0.course == "dessert" && $0.name.localizedStandardContains(text) }
        #expect(Set(try names(FetchDescriptor(predicate: both))) == ["Éclair", "eclair"])
        #expect(try context.fetchCount(FetchDescriptor(predicate: both)) == 2)
        let subtitleQuery = "APPLE"
        let optional = #Predicate<Recipe> { recipe in
            recipe.subtitle.flatMap { $0.localizedStandardContains(subtitleQuery) } == true
        }
        #expect(try names(FetchDescriptor(predicate: optional)) == ["Apple pie"])
    }

    @Test func caseInsensitiveAndLocalizedCompareInPredicates() throws {
        let same = ComparisonResult.orderedSame
        let soup = "SOUP 2"
        #expect(
            try names(FetchDescriptor(predicate: #Predicate { $0.name.caseInsensitiveCompare(soup) == same })) == [
                "soup 2"
            ])
        let before = ComparisonResult.orderedAscending
        let bound = "b"
        let early = #Predicate<Recipe> { $0.name.localizedCompare(bound) == before }
        #expect(try names(FetchDescriptor(predicate: early, sortBy: [SortDescriptor(\.name)])) == ["Apple pie"])
    }

    @Test func sortDescriptorsWithTheLocalizedStandardComparator() throws {
        let dessertsOrSoups = FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])
        #expect(
            try names(dessertsOrSoups) == [
                "Apple pie", "Crème brûlée", "eclair", "Éclair", "soup 2", "Soup 10", "Zabaglione",
            ])
        var reversed = FetchDescriptor<Recipe>(
            sortBy: [SortDescriptor(\.name, comparator: .localizedStandard, order: .reverse)])
        reversed.fetchLimit = 3
        #expect(try names(reversed) == ["Zabaglione", "Soup 10", "soup 2"], "numbers by value, not by index order")
        let starters = FetchDescriptor<Recipe>(
            predicate: #Predicate { $0.course == "starter" },
            sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])
        #expect(try names(starters) == ["soup 2", "Soup 10"])
        // The lexical order, for contrast: byte order puts "S" before "s".
        #expect(
            try names(
                FetchDescriptor(predicate: #Predicate { $0.course == "starter" }, sortBy: [SortDescriptor(\.name)]))
                == [
                    "Soup 10", "soup 2",
                ])
    }

    @Test func localizedSortOfAnOptionalStringPutsNilFirst() throws {
        let bySubtitle = FetchDescriptor<Recipe>(
            predicate: #Predicate { $0.course == "dessert" },
            sortBy: [SortDescriptor(\.subtitle, comparator: .localized), SortDescriptor(\.name)])
        #expect(try context.fetch(bySubtitle).map { $0.subtitle ?? "-" } == ["-", "-", "apple", "Custard", "Small"])
    }
}
