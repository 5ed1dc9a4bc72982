import Cairn
import Foundation
import Testing

// Written as SwiftData code is: declarations code written for SwiftData uses —
// `ModelContainer.configurations` as a set, `storeIdentifier(forConfigurationNamed:)`,
// `ModelContext.NotificationKey.queryGeneration` and `processPendingChanges()`.

@Suite struct ContextSurfaceTests {
    @Test func theConfigurationsAreASetAndNameTheStore() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration("Library", url: URL(fileURLWithPath: directory.child("Library.store")))
        let container = try ModelContainer(for: Binder.self, Page.self, configurations: configuration)
        let configurations: Set<ModelConfiguration> = container.configurations
        #expect(configurations == [configuration])
        #expect(container.storeIdentifier(forConfigurationNamed: "Library") == container.storeIdentifier)
        #expect(container.storeIdentifier(forConfigurationNamed: "Elsewhere") == nil)
    }

    @Test func didSaveCarriesTheGenerationTheSaveMade() throws {
        let container = try makeContainer(inMemory: Binder.self, Page.self)
        let context = ModelContext(container)
        let observer = SaveNotificationRecorder(context)
        context.insert(Binder(label: "Recipes"))
        try context.save()
        let generation = try #require(
            observer.userInfos.last?[ModelContext.NotificationKey.queryGeneration.rawValue] as? DefaultHistoryToken)
        #expect(generation.storeIdentifier == container.storeIdentifier)
        // The generation is the save's transaction: history after it holds only later saves.
        let later = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(
            predicate: #Predicate { $0.token > generation }))
        #expect(later.isEmpty)
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.last?.token == generation)
    }

    @Test func processingPendingChangesAppliesCascadesBeforeTheSave() throws {
        let container = try makeContainer(inMemory: Binder.self, Page.self)
        let context = ModelContext(container)
        let binder = Binder(label: "Recipes")
        context.insert(binder)
        binder.pages = [Page(number: 1), Page(number: 2)]
        try context.save()
        context.delete(binder)
        #expect(context.deletedModelsArray.count == 1)
        context.processPendingChanges()
        #expect(context.deletedModelsArray.count == 3)
        #expect(try context.fetch(FetchDescriptor<Page>()).isEmpty)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Page>()) == 0)
    }
}

/// The `userInfo` of each `didSave` one context posts.
final class SaveNotificationRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [[AnyHashable: Any]] = []
    private var token: (any NSObjectProtocol)?

    init(_ context: ModelContext) {
        token = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { [weak self] in
            let userInfo = $0.userInfo ?? [:]
            self?.lock.withLock { self?.recorded.append(userInfo) }
        }
    }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }

    var userInfos: [[AnyHashable: Any]] { lock.withLock { recorded } }
}
