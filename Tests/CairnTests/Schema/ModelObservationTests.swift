import Foundation
import Observation
import Testing

@testable import Cairn

/// Observation through `withObservationTracking` and the way SwiftUI uses it, and what a model
/// skips while nothing can observe it (`_ModelState+Observation.swift`).
@Suite struct ModelObservationTests {
    @Test func aModelOnlyCreatedAndSetHasNoRegistrar() {
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        book.title = "Persuasion"
        book.keywords = ["novel"]
        #expect(!book._$modelState.hasRegistrar)
        #expect(book.title == "Persuasion")
        #expect(book._$modelState.hasRegistrar, "the first getter call makes the registrar")
    }

    @Test func theRegistrarGoesWithItsModel() throws {
        let notified: ObservationFlag
        do {
            let book = LibraryBook(isbn: "978-1", title: "Emma")
            notified = tracking { _ = book.title }
            #expect(book._$modelState.hasRegistrar)
            book.title = "Persuasion"
            #expect(notified.isSet, "the registrar notifies")
        }
        // The model and its state are gone (their registrar torn down with them), and a
        // registrar made afterwards for another model is its own.
        let other = LibraryBook(isbn: "978-2", title: "Mansfield Park")
        let otherNotified = tracking { _ = other.title }
        other.isbn = "978-3"
        #expect(!otherNotified.isSet)
        other.title = "Sense and Sensibility"
        #expect(otherNotified.isSet)
    }

    @Test func aTrackedPropertyNotifiesAndAnUntrackedOneDoesNot() {
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        let notified = tracking { _ = book.title }
        book.isbn = "978-2"
        book.keywords = ["classic"]
        #expect(!notified.isSet, "only properties read in the tracking closure are observed")
        book.title = "Persuasion"
        #expect(notified.isSet)
    }

    @Test func aPropertyReadBeforeTrackingStillNotifiesWhenTrackedLater() {
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        #expect(book.title == "Emma")
        book.title = "Sense and Sensibility"
        let notified = tracking { _ = book.title }
        book.title = "Persuasion"
        #expect(notified.isSet)
    }

    @Test func onChangeRunsBeforeTheNewValueIsStored() {
        // `withObservationTracking`'s `onChange` is a will-set: SwiftUI reads the old value there.
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        let seen = ValueBox<String>()
        // `onChange` runs inside the setter, on this thread.
        nonisolated(unsafe) let observed = book
        withObservationTracking {
            _ = book.title
        } onChange: {
            seen.set(observed.title)
        }
        book.title = "Persuasion"
        #expect(seen.value == "Emma")
    }

    @Test func aViewReRenderedOnEveryChangeSeesEachValue() {
        // SwiftUI's pattern: render inside a tracking closure, and on a change render again,
        // tracking again. Setting a property the view does not read renders nothing.
        let author = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org")
        let view = TrackingView { "\(author.firstName) \(author.lastName)" }
        #expect(view.renders == ["Jane Austen"])
        author.lastName = "Fairfax"
        view.flush()
        author.email = "jane@fairfax.example"
        view.flush()
        author.firstName = "Janet"
        view.flush()
        #expect(view.renders == ["Jane Austen", "Jane Fairfax", "Janet Fairfax"])
    }

    @Test func aFetchedModelIsObservedLikeANewOne() throws {
        let directory = TemporaryDirectory()
        let fetched = try fetchedAuthor(in: directory)
        fetched.email = "jane@elsewhere.example"
        #expect(!fetched._$modelState.hasRegistrar, "updating without reading needs no registrar")
        let view = TrackingView { fetched.lastName }
        fetched.lastName = "Fairfax"
        view.flush()
        #expect(view.renders == ["Austen", "Fairfax"])
    }

    /// A model of a context read while no tracking closure runs makes no registrar (its context's
    /// probe says none is running); read in one, it makes it, and notifies from then on, also for
    /// a property it had read before without one.
    @Test func aModelReadOutsideTrackingMakesNoRegistrarAndIsObservedOnceTracked() throws {
        let directory = TemporaryDirectory()
        let fetched = try fetchedAuthor(in: directory)
        #expect(fetched.lastName == "Austen" && fetched.email == "jane@example.org")
        #expect(!fetched._$modelState.hasRegistrar, "nothing could observe these reads")
        fetched.lastName = "Fairfax"
        let notified = tracking { _ = fetched.email }
        #expect(fetched._$modelState.hasRegistrar, "a read in a tracking closure makes the registrar")
        fetched.lastName = "Bennet"
        #expect(!notified.isSet, "a property the tracking did not read")
        fetched.email = "jane@elsewhere.example"
        #expect(notified.isSet, "read before without a registrar, then tracked")
        let view = TrackingView { fetched.lastName }
        fetched.lastName = "Dashwood"
        view.flush()
        #expect(view.renders == ["Bennet", "Dashwood"])
    }

    /// A change in place (`append`, `+=`) goes through `_modify`: it notifies a tracked property as
    /// a set does, and on a property nothing read it registers no access (no registrar is made,
    /// and later changes skip the registrar).
    @Test func aChangeInPlaceNotifiesWhenTrackedAndRegistersNothingOtherwise() {
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        book.keywords.append("novel")
        book.keywords += ["classic"]
        #expect(!book._$modelState.hasRegistrar, "a change in place is not a read")
        #expect(book.keywords == ["novel", "classic"])
        let notified = tracking { _ = book.keywords }
        book.keywords.append("regency")
        #expect(notified.isSet, "a tracked property changed in place notifies")
        #expect(book.keywords == ["novel", "classic", "regency"])
    }

    @Test func anInverseKeptInStepNotifiesOnlyWhenItsSideIsRead() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let emma = LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org")
        let unread = LibraryAuthor(firstName: "Fanny", lastName: "Burney", email: "fanny@example.org")
        context.insert(emma)
        context.insert(unread)
        let view = TrackingView { emma.books.map(\.title).joined(separator: ",") }
        let first = LibraryBook(isbn: "978-3", title: "Emma")
        context.insert(first)
        first.author = emma
        let second = LibraryBook(isbn: "978-4", title: "Evelina")
        context.insert(second)
        view.flush()
        second.author = unread
        view.flush()
        #expect(view.renders == ["", "Emma"])
        #expect(!unread._$modelState.hasRegistrar, "keeping an inverse in step reads nothing through a getter")
        #expect(unread.books.map(\.title) == ["Evelina"])
    }

    @Test(arguments: [0, 1, 63, 64, 65, 127, 128, 200])
    func propertyBitsHoldAnyIndex(_ index: Int) {
        var bits = PropertyBits()
        #expect(bits.isEmpty && !bits.contains(index))
        bits.insert(index)
        #expect(bits.contains(index) && !bits.isEmpty)
        #expect(!bits.contains(index + 1) && (index == 0 || !bits.contains(index - 1)))
        bits.removeAll()
        #expect(bits.isEmpty && !bits.contains(index))
    }
}

/// An author saved in a store in `directory`, fetched by a context of its own.
private func fetchedAuthor(in directory: TemporaryDirectory) throws -> LibraryAuthor {
    let context = ModelContext(try libraryContainer(directory))
    context.insert(LibraryAuthor(firstName: "Jane", lastName: "Austen", email: "jane@example.org"))
    try context.save()
    return try ModelContext(context.container).fetch(FetchDescriptor<LibraryAuthor>())[0]
}

/// Runs `read` in a tracking closure; the flag is set when what it read is about to change.
private func tracking(_ read: () -> Void) -> ObservationFlag {
    let notified = ObservationFlag()
    withObservationTracking(read) { notified.set() }
    return notified
}

/// Set from an observation callback, read by the test.
private final class ObservationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false  // guarded by lock
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Renders through `withObservationTracking` and, once what it read has changed, renders again
/// at the next ``flush()``, tracking again: the way SwiftUI invalidates a view and updates it
/// after the change.
private final class TrackingView: @unchecked Sendable {
    // Only the test's thread uses it: the setters that call `onChange` run there.
    private(set) var renders: [String] = []
    private var pending = false
    private let body: () -> String

    init(_ body: @escaping () -> String) {
        self.body = body
        render()
    }

    private func render() {
        let text = withObservationTracking(body) {
            // Called inside the setter, before the value changes: render at the next flush.
            self.pending = true
        }
        renders.append(text)
    }

    /// Renders again when a change is pending.
    func flush() {
        guard pending else { return }
        pending = false
        render()
    }
}

/// A value set from an `onChange` closure, which must be `@Sendable`.
private final class ValueBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?  // guarded by lock
    var value: Value? { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
