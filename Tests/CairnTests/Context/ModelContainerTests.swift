import Foundation
import Testing

@testable import Cairn
@testable import CairnStorage

// Three versions of one entity, `Item`, as an app's schema evolves.
enum ItemsV1 {
    @Model final class Item {
        var title: String
        var count: Int
        init(title: String, count: Int) {
            self.title = title
            self.count = count
        }
    }
}

enum ItemsV2 {
    @Model final class Item {
        @Attribute(originalName: "title") var name: String
        var count: Int
        var note: String?
        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }
}

enum ItemsV3 {
    @Model final class Item {
        var name: String
        var count: String
        init(name: String, count: String) {
            self.name = name
            self.count = count
        }
    }
}

enum ItemsV4 {
    @Model final class Item {
        var name: String
        var count: Int?
        var title: String = ""
        init(name: String) { self.name = name }
    }
}

@Suite struct ModelContainerTests {
    func configuration(_ directory: TemporaryDirectory) -> ModelConfiguration {
        ModelConfiguration(url: URL(fileURLWithPath: directory.child("Library.store")))
    }

    @Test func aStoreIsCreatedOnceAndKeepsItsIdentifier() throws {
        let directory = TemporaryDirectory()
        let first = try ModelContainer(for: ItemsV1.Item.self, configurations: configuration(directory)).storeIdentifier
        let second = try ModelContainer(for: ItemsV1.Item.self, configurations: configuration(directory))
            .storeIdentifier
        #expect(first == second)
        #expect(UUID(uuidString: first) != nil)
        #expect(FileManager.default.fileExists(atPath: directory.child("Library.store/data.mdb")))
    }

    @Test func attributeTagsSurviveRenamesAdditionsAndRemovals() throws {
        let directory = TemporaryDirectory()
        let v1 = try ModelContainer(for: ItemsV1.Item.self, configurations: configuration(directory))
        #expect(v1.store.entities["Item"]?.codec.tags == ["title": 1, "count": 2])
        // Renamed with originalName: the same field; a new attribute gets the next tag.
        let v2 = try ModelContainer(for: ItemsV2.Item.self, configurations: configuration(directory))
        #expect(v2.store.entities["Item"]?.codec.tags == ["name": 1, "count": 2, "note": 3])
        // `note` removed, `count` made optional, `title` declared anew: a removed tag is never reused.
        let v4 = try ModelContainer(for: ItemsV4.Item.self, configurations: configuration(directory))
        #expect(v4.store.entities["Item"]?.codec.tags == ["name": 1, "count": 2, "title": 4])
        // Back to V2: `note` finds its old field again.
        let again = try ModelContainer(for: ItemsV2.Item.self, configurations: configuration(directory))
        #expect(again.store.entities["Item"]?.codec.tags == ["name": 1, "count": 2, "note": 3])
    }

    @Test func anAttributeThatChangedTypeIsRefusedWithARemedy() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try ModelContainer(for: ItemsV2.Item.self, configurations: configuration(directory)))
        context.insert(ItemsV2.Item(name: "pens", count: 3))
        try context.save()
        #expect {
            try ModelContainer(for: ItemsV3.Item.self, configurations: configuration(directory))
        } throws: { error in
            guard let error = error as? SchemaError else { return false }
            return error.code == .incompatibleStore && error.property == "count"
                && error.message.contains("stored as Swift.Int but declared as Swift.String")
        }
    }

    /// With no stored value of an attribute to misread, its type may change.
    @Test func anAttributeWithoutStoredValuesMayChangeType() throws {
        let directory = TemporaryDirectory()
        _ = try ModelContainer(for: ItemsV2.Item.self, configurations: configuration(directory))
        let container = try ModelContainer(for: ItemsV3.Item.self, configurations: configuration(directory))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ItemsV3.Item>()) == 0)
    }

    @Test func anInvalidSchemaIsRefusedBeforeTheStoreIsTouched() throws {
        let directory = TemporaryDirectory()
        #expect(throws: SchemaError.self) {
            try ModelContainer(for: BadCounts.self, configurations: configuration(directory))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.child("Library.store")))
    }

    @Test func aContainerForOneModelStoresEveryModelItReaches() throws {
        let directory = TemporaryDirectory()
        do {
            let container = try ModelContainer(for: OrphanInvoice.self, configurations: configuration(directory))
            #expect(container.schema.entities.map(\.name) == ["OrphanInvoice", "OrphanCustomer", "OrphanRegion"])
            let context = ModelContext(container)
            let invoice = OrphanInvoice(number: 7)
            let customer = OrphanCustomer(name: "Ada")
            context.insert(invoice)
            context.insert(customer)
            let region = OrphanRegion(name: "North")
            context.insert(region)
            invoice.customer = customer
            customer.region = region
            try context.save()
        }
        let reopened = ModelContext(
            try ModelContainer(for: OrphanInvoice.self, configurations: configuration(directory)))
        let regions = try reopened.fetch(FetchDescriptor<OrphanRegion>())
        #expect(regions.map(\.name) == ["North"])
        #expect(regions.first?.customers.map(\.name) == ["Ada"])
        #expect(try reopened.fetch(FetchDescriptor<OrphanInvoice>()).first?.customer?.name == "Ada")
    }

    @Test func inMemoryStoresAreIndependentAndLeaveNothingBehind() throws {
        var first: ModelContainer? = try makeContainer(inMemory: ItemsV1.Item.self)
        let second = try makeContainer(inMemory: ItemsV1.Item.self)
        #expect(first!.storeIdentifier != second.storeIdentifier)
        let path = first!.store.environment.path
        #expect(FileManager.default.fileExists(atPath: path))
        first = nil
        #expect(!FileManager.default.fileExists(atPath: path), "an in-memory store's files go with its container")
    }

    @Test func aReadOnlyConfigurationNeedsAnExistingStore() throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Missing.store"))
        #expect {
            try ModelContainer(for: ItemsV1.Item.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        } throws: { ($0 as? StorageError)?.code == .notFound }
        _ = try ModelContainer(for: ItemsV1.Item.self, configurations: ModelConfiguration(url: url))
        let readOnly = try ModelContainer(
            for: ItemsV1.Item.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(readOnly.store.isReadOnly)
        #expect { try readOnly.erase() } throws: { ($0 as? StorageError)?.code == .readOnly }
    }

    @Test func configurationSettingsReachTheStore() throws {
        let directory = TemporaryDirectory()
        var settings = configuration(directory)
        settings.maximumSize = 8 << 20
        settings.durability = .noMetaSync
        let container = try ModelContainer(for: ItemsV1.Item.self, configurations: settings)
        #expect(container.store.environment.configuration.maximumMapSize == 8 << 20)
        #expect(container.store.environment.configuration.durability == .noMetaSync)
        #expect(container.configurations == [settings])
        #expect(throws: StorageError.self) {
            try ModelContainer(for: Schema([ItemsV1.Item.self]), configurations: [settings, settings])
        }
    }

    @Test func onlyAnInMemoryStoreSkipsFlushing() throws {
        // ARCHITECTURE §3: in-memory stores skip syncing; a store on disk never sets MDB_NOSYNC.
        let memory = try makeContainer(inMemory: ItemsV1.Item.self)
        #expect(memory.store.environment.configuration.durability == .unsynced)
        #expect(try !memory.store.environment.state.flushesCommits())
        let context = ModelContext(memory)
        context.insert(ItemsV1.Item(title: "kept in memory", count: 1))
        try context.save()
        #expect(try ModelContext(memory).fetchCount(FetchDescriptor<ItemsV1.Item>()) == 1)

        let directory = TemporaryDirectory()
        for durability in [ModelConfiguration.Durability.full, .noMetaSync] {
            var settings = configuration(directory)
            settings.durability = durability
            let disk = try ModelContainer(for: ItemsV1.Item.self, configurations: settings)
            #expect(try disk.store.environment.state.flushesCommits())
        }
    }

    @Test func eraseDeletesEveryRecord() throws {
        let container = try makeContainer(inMemory: ItemsV1.Item.self)
        let records = try #require(container.store.entities["Item"]?.layout.records)
        try container.store.environment.write { txn in
            for n in 0..<10 { try txn.put([1], for: key(n), in: records) }
        }
        try container.erase()
        #expect(try container.store.environment.read { txn in try txn.count(of: records) } == 0)
        #expect(container.store.entities["Item"]?.codec.tags.isEmpty == false, "the schema stays")
    }

    @Test func theDefaultConfigurationLivesInApplicationSupport() {
        let configuration = ModelConfiguration("Library")
        #expect(configuration.url.lastPathComponent == "Library.store")
        #expect(configuration.name == "Library" && configuration.allowsSave && !configuration.isStoredInMemoryOnly)
        #expect(ModelConfiguration(url: URL(fileURLWithPath: "/tmp/Archive.store")).name == "Archive")
    }
}
