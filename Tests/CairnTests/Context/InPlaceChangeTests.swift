import Foundation
import Testing

@testable import Cairn

/// Changes of a to-many relationship in place (`author.books.append(book)`): the list is changed
/// without a copy, the inverses follow every kind of change, nested changes and a throwing one
/// leave both sides in step, and a save from inside a change is refused.
@Suite struct InPlaceChangeTests {
    private func thoreau(in context: ModelContext) -> LibraryAuthor {
        let author = LibraryAuthor(firstName: "Henry", lastName: "Thoreau", email: "ht@example.org")
        context.insert(author)
        return author
    }

    private func book(_ title: String) -> LibraryBook { LibraryBook(isbn: title, title: title) }

    /// The list's buffer stays where it is while it has room: no change copied it.
    @Test func anAppendChangesTheListWithoutACopy() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let author = thoreau(in: context)
        author.books.reserveCapacity(64)
        let buffer = author.books.withUnsafeBufferPointer { $0.baseAddress }
        var moves = 0
        for index in 0..<32 {
            author.books.append(book("B\(index)"))
            // A copy is made while the list it copies is alive: it always lies elsewhere.
            if author.books.withUnsafeBufferPointer({ $0.baseAddress }) != buffer { moves += 1 }
        }
        #expect(moves == 0)
        #expect(author.books.count == 32 && author.books.allSatisfy { $0.author === author })
    }

    @Test func everyKindOfChangeInPlaceKeepsTheInversesInStep() throws {
        let directory = TemporaryDirectory()
        do {
            let context = ModelContext(try libraryContainer(directory))
            let author = thoreau(in: context)
            let books = (0..<6).map { book("B\($0)") }
            author.books.append(contentsOf: books)
            author.books.removeAll { $0.title == "B1" || $0.title == "B4" }
            #expect(books[1].author == nil && books[4].author == nil)
            author.books.insert(books[1], at: 0)
            author.books.swapAt(0, 1)
            author.books.sort { $0.title > $1.title }
            author.books[0] = books[4]  // B5 out, B4 in
            #expect(books[5].author == nil && books[4].author === author)
            #expect(author.books.map(\.title) == ["B4", "B3", "B2", "B1", "B0"])
            #expect(books.filter { $0.author === author }.count == 5)
            try context.save()
        }
        let context = ModelContext(try libraryContainer(directory))
        let author = try #require(try context.fetch(FetchDescriptor<LibraryAuthor>()).first)
        #expect(author.books.map(\.title) == ["B4", "B3", "B2", "B1", "B0"])
        let orphans = try context.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.author == nil }))
        #expect(orphans.map(\.title) == ["B5"])
    }

    /// A change whose closure changes another author's list, and one whose closure reads the
    /// list being changed.
    @Test func nestedChangesKeepBothSidesInStep() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let (thoreau, emerson) = (thoreau(in: context), LibraryAuthor(firstName: "R", lastName: "E", email: "re"))
        context.insert(emerson)
        thoreau.books = (0..<4).map { book("T\($0)") }
        emerson.books = (0..<2).map { book("E\($0)") }
        thoreau.books.removeAll { member in
            if member.title == "T2" { emerson.books.append(member) }
            return member.title == "T2"
        }
        #expect(thoreau.books.map(\.title) == ["T0", "T1", "T3"])
        #expect(emerson.books.map(\.title) == ["E0", "E1", "T2"])
        #expect(emerson.books.allSatisfy { $0.author === emerson })
        #expect(thoreau.books.allSatisfy { $0.author === thoreau })
        #expect(context.isChangingNoListInPlace)
    }

    /// The same list changed inside its own change (an overlapping access): the outer change's
    /// list wins, and every member it does not hold has no inverse left pointing at the author,
    /// the one the inner change appended included.
    @Test func aChangeOfTheSameListInsideItsChangeLeavesNoStrayInverse() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let author = thoreau(in: context)
        let books = (0..<4).map { book("B\($0)") }
        author.books = books
        let extra = book("Extra")
        author.books.removeAll { member in
            if member.title == "B0" { author.books.append(extra) }
            return member.title == "B1"
        }
        let kept = Set(author.books.map(ObjectIdentifier.init))
        for model in books + [extra] {
            #expect((model.author === author) == kept.contains(ObjectIdentifier(model)), "\(model.title)")
        }
        #expect(context.isChangingNoListInPlace)
    }

    private struct Stop: Error {}

    /// As with a stored property, a change that throws keeps what it did; the inverses follow it.
    @Test func aThrowingChangeKeepsWhatItDidWithTheInverses() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let author = thoreau(in: context)
        let books = (0..<4).map { book("B\($0)") }
        author.books = books
        var thrown: (any Error)?
        do {
            try author.books.removeAll { member in
                if member.title == "B2" { throw Stop() }
                return member.title == "B0"
            }
        } catch {
            thrown = error
        }
        #expect(thrown is Stop)
        let kept = Set(author.books.map(ObjectIdentifier.init))
        #expect(books.allSatisfy { ($0.author === author) == kept.contains(ObjectIdentifier($0)) })
        #expect(context.isChangingNoListInPlace)
        author.books.append(book("B4"))
        #expect(author.books.last?.author === author)
    }

    @Test func aSaveDuringAChangeInPlaceIsRefusedAndLosesNothing() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try libraryContainer(directory))
        let author = thoreau(in: context)
        author.books = [book("Walden"), book("Cape Cod")]
        var refusal: (any Error)?
        author.books.removeAll { member in
            do { try context.save() } catch { refusal = error }
            return member.title == "Cape Cod"
        }
        #expect((refusal as? SaveError)?.code == .changeInProgress)
        try context.save()
        let reopened = ModelContext(try libraryContainer(directory))
        let stored = try #require(try reopened.fetch(FetchDescriptor<LibraryAuthor>()).first)
        #expect(stored.books.map(\.title) == ["Walden"])
    }

    /// Members dropped by a change stay alive until the change ends, though a fetch inside it
    /// registers enough models to sweep the identity map (which lets go of what only it holds).
    @Test func aSweepDuringAChangeLetsNoMemberGo() throws {
        let directory = TemporaryDirectory()
        do {
            let context = ModelContext(try libraryContainer(directory))
            let author = thoreau(in: context)
            author.books = (0..<8).map { book("B\($0)") }
            for index in 0..<3000 { context.insert(book("X\(index)")) }
            try context.save()
        }
        let context = ModelContext(try libraryContainer(directory))
        let author = try #require(try context.fetch(FetchDescriptor<LibraryAuthor>()).first)
        weak let removed = author.books.first
        var aliveAfterSweep = false
        author.books.removeFirst(2) {
            // Registers 3,000 more models: the map doubles and would sweep.
            _ = try? context.fetch(FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.title.starts(with: "X") }))
            aliveAfterSweep = removed != nil
        }
        #expect(aliveAfterSweep)
        #expect(author.books.map(\.title) == (2..<8).map { "B\($0)" })
        try context.save()
        let reopened = ModelContext(try libraryContainer(directory))
        let orphans = try reopened.fetch(
            FetchDescriptor<LibraryBook>(predicate: #Predicate { $0.author == nil && !$0.title.starts(with: "X") }))
        #expect(Set(orphans.map(\.title)) == ["B0", "B1"])
    }
}

extension Array {
    /// Removes the first `count` elements, then runs `body`: the removed ones are released
    /// before `body` runs.
    fileprivate mutating func removeFirst(_ count: Int, then body: () -> Void) {
        removeFirst(count)
        body()
    }
}

/// The stack of member addresses kept for changes in place.
@Suite struct MembershipSnapshotsTests {
    private final class Member {}

    private func addresses(_ members: [Member]) -> [UnsafeRawPointer] {
        members.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
    }

    private func kept(_ snapshots: MembershipSnapshots, _ model: ObjectIdentifier, _ index: Int) -> [UnsafeRawPointer]?
    {
        snapshots.members(of: model, index).map { Array($0) }
    }

    @Test func nestedSnapshotsAreKeptAndForgottenByModelAndIndex() {
        let (first, second) = ((0..<3).map { _ in Member() }, (0..<2).map { _ in Member() })
        let (a, b) = (ObjectIdentifier(Member.self), ObjectIdentifier(Int.self))
        let snapshots = MembershipSnapshots()
        #expect(snapshots.isEmpty && kept(snapshots, a, 4) == nil)
        first.withUnsafeBytes { snapshots.push(a, 4, members: $0) }
        second.withUnsafeBytes { snapshots.push(b, 4, members: $0) }
        [Member]().withUnsafeBytes { snapshots.push(a, 5, members: $0) }
        #expect(kept(snapshots, a, 4) == addresses(first))
        #expect(kept(snapshots, b, 4) == addresses(second))
        #expect(kept(snapshots, a, 5) == [])
        let (popped, poppedAgain) = (snapshots.pop(a, 5), snapshots.pop(a, 5))
        #expect(popped && !poppedAgain)
        // Out of order: the later frame's addresses move down.
        let poppedBelow = snapshots.pop(a, 4)
        #expect(poppedBelow)
        #expect(kept(snapshots, b, 4) == addresses(second) && kept(snapshots, a, 4) == nil)
        let poppedLast = snapshots.pop(b, 4)
        #expect(poppedLast && snapshots.isEmpty)
        // Past the first capacity: the addresses move, each frame's stay its own.
        let many = (0..<40).map { _ in (0..<7).map { _ in Member() } }
        for (position, members) in many.enumerated() {
            members.withUnsafeBytes { snapshots.push(a, position, members: $0) }
        }
        #expect(many.indices.allSatisfy { kept(snapshots, a, $0) == addresses(many[$0]) })
        for position in many.indices.reversed() { snapshots.pop(a, position) }
        #expect(snapshots.isEmpty)
    }
}
