import Cairn
import Foundation

// Models of the live query tests.

@Model final class LiveAuthor {
    var label: Int
    var name: String
    var group: Int
    var score: Int
    @Relationship(deleteRule: .cascade, inverse: \LiveBook.author) var books: [LiveBook] = []

    init(label: Int, name: String, group: Int, score: Int) {
        self.label = label
        self.name = name
        self.group = group
        self.score = score
    }
}

@Model final class LiveBook {
    var label: Int
    var title: String
    var author: LiveAuthor?

    init(label: Int, title: String) {
        self.label = label
        self.title = title
    }
}

func liveContainer(_ directory: TemporaryDirectory) throws -> ModelContainer {
    try makeContainer(LiveAuthor.self, LiveBook.self, in: directory, named: "Live.store")
}
