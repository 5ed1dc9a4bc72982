import Foundation
import Testing

@testable import Cairn

/// The explainer on its own: the access path of an executor's plan and the rows it would read.
@Suite struct FetchExplainerTests {
    func explain(_ descriptor: FetchDescriptor<LibraryAuthor>, in context: ModelContext) throws -> FetchPlan {
        let tables = context.store.entities["LibraryAuthor"]!
        let executor = try FetchExecutor(FetchRequest(descriptor, tables: tables), in: context)
        return try FetchExplainer(executor: executor, store: context.store).plan()
    }

    @Test func aUniqueKeyAFullScanAndAnIndexOrderAreCounted() throws {
        let context = try savedAuthorsLibrary()
        let unique = try explain(
            FetchDescriptor(predicate: #Predicate { $0.email == "1@example.org" }), in: context)
        #expect(unique.estimatedRows == 1 && !unique.evaluatesPredicate)
        let scan = try explain(FetchDescriptor(), in: context)
        #expect(scan.accessPath == .fullScan && scan.estimatedRows == 3)
        var first = FetchDescriptor<LibraryAuthor>(sortBy: [SortDescriptor(\.lastName)])
        first.fetchLimit = 2
        let ordered = try explain(first, in: context)
        #expect(ordered.estimatedRows == 2)
        guard case .indexOrder = ordered.accessPath else {
            Issue.record("a limited fetch sorted by an indexed attribute reads in index order")
            return
        }
    }
}
