import Foundation
import Testing

@testable import Cairn

/// The handle on a model's state (`_ModelState+Unretained.swift`) reads and writes the state
/// stored in the model, in place, and its methods act on it.
@Suite struct UnretainedModelStateTests {
    @Test func theHandleReadsAndWritesTheModelsOwnState() {
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        let state = book._$state
        state.planPosition = 7
        #expect(book._$modelState.planPosition == 7, "a write lands in the model's state")
        book._$modelState.recordChecksum = 42
        #expect(state.recordChecksum == 42, "a read sees the model's state")
        #expect(!state.hasChanges)
        state.markChanged(2)
        #expect(book._$modelState.isChanged(2) && state.isChanged(2) && state.hasChanges)
        state.clearChanges()
        #expect(!book._$modelState.hasChanges)
        #expect(state.loader == nil, "a model only created has no context")
        let stored = withUnsafeMutablePointer(to: &book._$modelState) { UnsafeMutableRawPointer($0) }
        #expect(UnsafeMutableRawPointer(state.pointer) == stored, "the handle points at the model's own state")
    }

    @Test func aContextsModelReachesItsContextThroughTheHandle() throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let context = ModelContext(container)
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        context.insert(book)
        #expect(book._$state.loader === context.hooks)
        #expect(book.modelContext === context)
        #expect(book._$state.persistentIdentifier == book.persistentModelID)
        book._$state.detach()
        #expect(book._$modelState.loader == nil)
    }

    @Test func aModelKnowsItsContextWithoutReadingIt() throws {
        let directory = TemporaryDirectory()
        let container = try libraryContainer(directory)
        let book = LibraryBook(isbn: "978-1", title: "Emma")
        #expect(!book._$state.isInContext, "a model only created belongs to no context")
        var context: ModelContext? = ModelContext(container)
        context!.insert(book)
        #expect(book._$state.isInContext)
        #expect(book._$state { $0.belongs(to: context!.link) })
        #expect(!book._$state { $0.belongs(to: ModelContext(container).link) }, "not another context's")
        context = nil
        #expect(!book._$state.isInContext, "a context that is gone holds no model")
    }
}
