import Foundation
import Testing

@testable import Cairn

enum SpotSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Spot.self] }

    @Model final class Spot {
        #Index<Spot>([\.name])
        var name: String
        init(name: String) { self.name = name }
    }
}

enum SpotSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 1, 0) }
    static var models: [any PersistentModel.Type] { [Spot.self] }

    @Model final class Spot {
        #Index<Spot>([\.name])
        var name: String?
        init(name: String?) { self.name = name }
    }
}

/// An indexed attribute whose optionality changes (allowed without a migration stage) keeps
/// answering through its index.
@Suite struct KeyOptionalityChangeTests {
    @Test func anIndexedAttributeMadeOptionalStillFindsItsRows() throws {
        let directory = TemporaryDirectory()
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: directory.child("Spots.store")))
        do {
            let context = ModelContext(
                try ModelContainer(for: Schema(versionedSchema: SpotSchemaV1.self), configurations: configuration))
            for name in ["a", "b", "a"] { context.insert(SpotSchemaV1.Spot(name: name)) }
            try context.save()
        }
        let container = try ModelContainer(for: Schema(versionedSchema: SpotSchemaV2.self), configurations: configuration)
        let a = #Predicate<SpotSchemaV2.Spot> { $0.name == "a" }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor(predicate: a)) == 2)
        #expect(try container.verify().isClean)
    }
}
