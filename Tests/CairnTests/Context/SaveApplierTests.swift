import Foundation
import Testing

@testable import Cairn

/// The save applier on its own: a plan written by the store writer, then made visible in the
/// context — permanent identifiers, the identity map, the pending changes, what `didSave` lists.
@Suite struct SaveApplierTests {
    /// Plans and writes the context's pending changes, then applies them.
    func planWriteAndApply(_ context: ModelContext) throws -> SaveApplier.Applied {
        var planned = try SavePlanner(changes: context.changeSet, rows: context.rows).plan()
        let outcome = try StoreWriter(store: context.store).write(&planned.plan)
        return SaveApplier(store: context.store, rows: context.rows).apply(planned, outcome, pending: &context.pending)
    }

    @Test func newModelsGetPermanentIdentifiersAndThePendingChangesEmpty() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let book = LibraryBook(isbn: "1", title: "One")
        context.insert(book)
        let applied = try planWriteAndApply(context)
        #expect(!book.persistentModelID.isTemporary && applied.inserted == [book.persistentModelID])
        #expect(applied.updated.isEmpty && applied.saved.outcomes == [.inserted])
        #expect(applied.saved.rows == [book.persistentModelID.rowID!])
        #expect(!context.hasChanges && context.registeredModel(for: book.persistentModelID) as LibraryBook? === book)
        #expect(try context.invariantViolations().isEmpty)
    }

    @Test func aTakeoverIsAnUpdateAndDeletedModelsLeaveTheContext() throws {
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        let (first, second) = (LibraryBook(isbn: "1", title: "One"), LibraryBook(isbn: "2", title: "Two"))
        context.insert(first)
        context.insert(second)
        _ = try planWriteAndApply(context)
        let again = LibraryBook(isbn: "1", title: "One, again")
        context.insert(again)
        context.delete(second)
        let deletedID = second.persistentModelID
        let applied = try planWriteAndApply(context)
        #expect(applied.inserted.isEmpty && applied.saved.outcomes == [.tookOver])
        #expect(applied.updated == [again.persistentModelID] && again.persistentModelID == first.persistentModelID)
        #expect(context.registeredModel(for: again.persistentModelID) as LibraryBook? === again)
        #expect(second.isDeleted && context.registeredModel(for: deletedID) as LibraryBook? == nil)
        #expect(!context.hasChanges)
        #expect(try context.invariantViolations().isEmpty)
    }

    @Test func aDetachedInsertBelongsToNoContext() throws {
        let book = LibraryBook(isbn: "1", title: "One")
        let context = ModelContext(try libraryContainer(TemporaryDirectory()))
        context.insert(book)
        SaveApplier.detach(book)
        #expect(book._$modelState.loader == nil && book._$modelState.persistentIdentifier == nil)
    }
}
