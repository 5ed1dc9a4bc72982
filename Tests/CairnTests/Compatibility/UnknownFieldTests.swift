import Cairn
import Foundation
import Testing

// Written as SwiftData code is: the same store opened by an older and a newer version of an app.

enum MemoV1 {
    @Model final class Memo {
        var title: String
        init(title: String) { self.title = title }
    }
}

enum MemoV2 {
    @Model final class Memo {
        var title: String
        var rating: Int?
        var tags: [String] = []
        init(title: String) { self.title = title }
    }
}

@Suite struct UnknownFieldTests {
    @Test func fieldsANewerVersionWroteSurviveASaveByAnOlderOne() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Memo.store")))
        do {
            let context = ModelContext(try ModelContainer(for: MemoV1.Memo.self, configurations: configuration))
            context.insert(MemoV1.Memo(title: "first"))
            try context.save()
        }
        do {  // the newer version rates the memo
            let context = ModelContext(try ModelContainer(for: MemoV2.Memo.self, configurations: configuration))
            let memo = try #require(try context.fetch(FetchDescriptor<MemoV2.Memo>()).first)
            memo.rating = 5
            memo.tags = ["kept", "safe"]
            try context.save()
        }
        do {  // the older version, which knows no rating, edits it
            let context = ModelContext(try ModelContainer(for: MemoV1.Memo.self, configurations: configuration))
            let memo = try #require(try context.fetch(FetchDescriptor<MemoV1.Memo>()).first)
            memo.title = "first, edited"
            context.insert(MemoV1.Memo(title: "second"))
            try context.save()
        }
        let container = try ModelContainer(for: MemoV2.Memo.self, configurations: configuration)
        let memos = try ModelContext(container).fetch(FetchDescriptor<MemoV2.Memo>(sortBy: [SortDescriptor(\.title)]))
        #expect(memos.map(\.title) == ["first, edited", "second"])
        #expect(memos.map(\.rating) == [5, nil], "the rating the older version never knew is still there")
        #expect(memos.map(\.tags) == [["kept", "safe"], []])
        #expect(try container.verify().problems.isEmpty)
    }
}
