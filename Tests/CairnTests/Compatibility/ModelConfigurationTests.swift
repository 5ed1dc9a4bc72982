import Cairn
import Foundation
import Testing

// Written as SwiftData code is: the configurations of previews, app groups and CloudKit settings.

@Model final class ConfiguredNote {
    var text: String
    var folder: ConfiguredFolder?
    init(text: String) { self.text = text }
}

@Model final class ConfiguredFolder {
    var name: String
    var notes: [ConfiguredNote] = []
    init(name: String) { self.name = name }
}

@Suite struct ModelConfigurationTests {
    @Test func aPreviewConfigurationForModelsOpensInMemory() throws {
        let configuration = ModelConfiguration(for: ConfiguredNote.self, isStoredInMemoryOnly: true)
        #expect(configuration.isStoredInMemoryOnly)
        #expect(configuration.schema?.entities.map(\.name) == ["ConfiguredNote", "ConfiguredFolder"])
        let container = try ModelContainer(for: ConfiguredNote.self, configurations: configuration)
        let context = ModelContext(container)
        context.insert(ConfiguredNote(text: "draft"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ConfiguredNote>()) == 1)

        let plain = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(plain.isStoredInMemoryOnly && plain.schema == nil)
        _ = try ModelContainer(for: ConfiguredFolder.self, configurations: plain)
    }

    @Test func groupContainersChooseTheDefaultDirectory() {
        let automatic = ModelConfiguration("Notes", groupContainer: .automatic)
        let none = ModelConfiguration("Notes", groupContainer: .none)
        #expect(automatic.url == none.url && automatic.url.lastPathComponent == "Notes.store")
        #expect(automatic.groupAppContainerIdentifier == nil)

        let shared = ModelConfiguration("Notes", groupContainer: .identifier("group.org.example.notes"))
        #expect(shared.groupAppContainerIdentifier == "group.org.example.notes")
        #expect(shared.url.lastPathComponent == "Notes.store" && shared.url != automatic.url)
        #if !canImport(Darwin)
        #expect(shared.url.deletingLastPathComponent().lastPathComponent == "group.org.example.notes")
        #endif
    }

    @Test func localCloudKitSettingsOpenTheStore() throws {
        for database in [ModelConfiguration.CloudKitDatabase.automatic, .none] {
            let configuration = ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: database)
            #expect(configuration.cloudKitContainerIdentifier == nil)
            let context = ModelContext(try ModelContainer(for: ConfiguredNote.self, configurations: configuration))
            context.insert(ConfiguredNote(text: "local"))
            try context.save()
        }
        let directory = TemporaryDirectory()
        let onDisk = ModelConfiguration(
            url: URL(fileURLWithPath: directory.child("Notes.store")), cloudKitDatabase: .none)
        _ = try ModelContainer(for: ConfiguredNote.self, configurations: onDisk)
    }

    @Test func aCloudKitDatabaseIsRefusedWithAnErrorThatSaysSo() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(
            url: URL(fileURLWithPath: directory.child("Synced.store")),
            cloudKitDatabase: .private("iCloud.org.example.notes"))
        #expect(configuration.cloudKitContainerIdentifier == "iCloud.org.example.notes")
        #expect {
            try ModelContainer(for: ConfiguredNote.self, configurations: configuration)
        } throws: { error in
            guard let error = error as? StorageError else { return false }
            return error.code == .unsupported && error.message.contains("iCloud.org.example.notes")
                && error.message.contains("cloudKitDatabase: .none")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.child("Synced.store")), "nothing was created")
    }
}

@Suite struct SmallAPITests {
    @Test func identifiersComeInTheDescriptorsOrderWithABatchSize() throws {
        let context = ModelContext(
            try makeContainer(inMemory: ConfiguredNote.self)
        )
        for text in ["b", "c", "a"] { context.insert(ConfiguredNote(text: text)) }
        try context.save()
        let descriptor = FetchDescriptor<ConfiguredNote>(sortBy: [SortDescriptor(\.text)])
        let ids = try context.fetchIdentifiers(descriptor, batchSize: 2)
        #expect(ids == (try context.fetch(descriptor)).map(\.persistentModelID))
        #expect(ids.compactMap { (context.model(for: $0) as? ConfiguredNote)?.text } == ["a", "b", "c"])
    }

    @Test func aDescriptorCrossesToAnotherActor() async throws {
        let container = try makeContainer(inMemory: ConfiguredNote.self)
        let setup = ModelContext(container)
        setup.insert(ConfiguredNote(text: "shared"))
        try setup.save()
        let descriptor = FetchDescriptor<ConfiguredNote>(predicate: #Predicate { $0.text == "shared" })
        let count = try await Task.detached {
            try ModelContext(container).fetchCount(descriptor)
        }.value
        #expect(count == 1)
    }

    @Test func deleteAllDataEmptiesTheStore() throws {
        let container = try makeContainer(inMemory: ConfiguredNote.self)
        let context = ModelContext(container)
        context.insert(ConfiguredNote(text: "gone"))
        try context.save()
        #expect(container.deleteAllData())
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ConfiguredNote>()) == 0)

        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.child("Notes.store"))
        _ = try ModelContainer(for: ConfiguredNote.self, configurations: ModelConfiguration(url: url))
        let readOnly = try ModelContainer(
            for: ConfiguredNote.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(!readOnly.deleteAllData(), "a store it cannot write says so")
    }
}
