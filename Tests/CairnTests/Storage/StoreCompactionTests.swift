import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

/// Compacting a store in place (`StoreCompaction`, `cairn compact`), as a library call.
@Suite struct StoreCompactionTests {
    /// POSIX locks never conflict with the caller's own: a store this process has open must be
    /// refused by the registry, or the data file would be replaced under a live map and later
    /// saves would go to the unlinked file.
    @Test func aStoreThisProcessHasOpenIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.child("Tally.store")
        var container: ModelContainer? = try tallyContainer(directory)
        let context = ModelContext(container!)
        for index in 0..<500 { context.insert(Tally(label: "row \(index)", amount: index)) }
        try context.save()
        let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        #expect { try StoreCompaction.compact(StorageConfiguration(path: path)) } throws: {
            ($0 as? StorageError)?.code == .inUse
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == before, "nothing was replaced")
        context.insert(Tally(label: "after", amount: 1))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Tally>()) == 501)

        // Released, the store compacts, and the next container finds every model.
        _ = consume context
        container = nil
        let outcome = try StoreCompaction.compact(StorageConfiguration(path: path))
        #expect(outcome.bytesAfter <= outcome.bytesBefore)
        let reopened = ModelContext(try tallyContainer(directory))
        #expect(try reopened.fetchCount(FetchDescriptor<Tally>()) == 501)
        #expect(try reopened.container.verify().isClean)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.contains("compacting")
        }
        #expect(leftovers.isEmpty, "the copy's directory is gone")
    }
}
