import Foundation
import Testing

@testable import Cairn

/// The record codec `@Model` generates: every kind of property reaches its field, records keep
/// the format stores already hold, an absent field takes the attribute's default, and a store
/// whose tags do not follow property order still gets its fields in tag order.
@Suite struct FieldCodingTests {
    enum Mood: String, Codable { case calm, stormy }

    @Model final class Specimen {
        var name: String
        var count: Int
        var weight: Double
        var isRare: Bool
        var found: Date
        var code: UUID
        var blob: Data
        var small: Int32
        var ratio: Float
        var note: String?
        var missing: Int64?
        var mood: Mood
        var tags: [String]
        var label: String = "untitled"
        var keeper: Keeper?

        init(name: String, count: Int) {
            self.name = name
            self.count = count
            weight = Double(count) / 3
            isRare = count % 2 == 0
            found = Date(timeIntervalSinceReferenceDate: Double(count) * 1_000)
            code = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8(count % 256)))
            blob = Data([0, 1, 2, UInt8(count % 256)])
            small = Int32(-count)
            ratio = Float(count) / 4
            note = count % 3 == 0 ? nil : "note \(count)"
            missing = nil
            mood = count % 2 == 0 ? .calm : .stormy
            tags = ["a", "b\(count)"]
        }
    }

    @Model final class Keeper {
        var name: String
        @Relationship(inverse: \Specimen.keeper) var specimens: [Specimen] = []
        init(name: String) { self.name = name }
    }

    func container(_ directory: TemporaryDirectory) throws -> ModelContainer {
        try makeContainer(Specimen.self, Keeper.self, in: directory, named: "Specimens.store")
    }

    /// The values a specimen holds, for comparison.
    func values(_ specimen: Specimen) -> String {
        "\(specimen.name)|\(specimen.count)|\(specimen.weight)|\(specimen.isRare)|\(specimen.found)|\(specimen.code)|"
            + "\(Array(specimen.blob))|\(specimen.small)|\(specimen.ratio)|\(specimen.note ?? "nil")|"
            + "\(specimen.missing.map(String.init) ?? "nil")|\(specimen.mood)|\(specimen.tags)|\(specimen.label)|"
            + "\(specimen.keeper?.name ?? "none")"
    }

    @Test func everyKindOfPropertyIsSavedAndReadBack() throws {
        let directory = TemporaryDirectory()
        let keeper = Keeper(name: "Ada")
        let specimens = (0..<20).map { Specimen(name: "s\($0)", count: $0) }
        specimens[3].label = "labelled"
        for specimen in specimens.prefix(10) { specimen.keeper = keeper }
        let expected = specimens.map(values)
        do {
            let context = ModelContext(try container(directory))
            for specimen in specimens { context.insert(specimen) }
            try context.save()
        }
        let context = ModelContext(try container(directory))
        let read = try context.fetch(FetchDescriptor<Specimen>(sortBy: [SortDescriptor(\.count)]))
        #expect(read.map(values) == expected)
    }

    @Test func theGeneratedCodecWritesAndReadsTheBytesTheAttributeCodecsDo() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try container(directory))
        let tables = context.store.tables(of: Specimen(name: "x", count: 1))
        #expect(tables.codec.fieldsAscendInPropertyOrder)
        for count in 0..<12 {
            let specimen = Specimen(name: "s\(count)", count: count)
            // Stores hold records the attribute codecs wrote: the generated codec must write
            // the same bytes, and read them.
            var writer = RecordWriter()
            for (tag, access) in tables.codec.encodingOrder { try access.encode(specimen, tag, &writer) }
            let general = writer.encoded()
            let generated = try SavePlanner.record(of: specimen, tables: tables)
            #expect(generated.bytes == general.bytes)
            let fault = Specimen(_$modelState: _ModelState(), _$constants: .none)
            let key = EntryLayout.rowKey(1)
            var sealed = general
            try context.rows.apply(RecordReader(sealed.sealed(forKey: key), key: key), to: fault, tables: tables)
            fault.keeper = nil  // relationships are not in the record
            #expect(values(fault) == values(specimen))
        }
    }

    @Test func aFieldTheRecordLacksTakesTheAttributesDefault() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try container(directory))
        let specimen = Specimen(name: "old", count: 4)
        let tables = context.store.tables(of: specimen)
        // A record written before `label` existed: every field but its own.
        let labelTag = try #require(tables.codec.tags["label"])
        var writer = RecordWriter()
        for (tag, access) in tables.codec.encodingOrder where tag != labelTag { try access.encode(specimen, tag, &writer) }
        var record = writer.encoded()
        let key = EntryLayout.rowKey(1)
        let fault = Specimen(_$modelState: _ModelState(), _$constants: .none)
        try context.rows.apply(RecordReader(record.sealed(forKey: key), key: key), to: fault, tables: tables)
        #expect(fault.label == "untitled" && fault.name == "old" && fault.tags == ["a", "b4"])
    }

    @Test func fieldsWhoseTagsDoNotFollowPropertyOrderAreWrittenInTagOrder() throws {
        let directory = TemporaryDirectory()
        let context = ModelContext(try container(directory))
        let stored = context.store.tables(of: Specimen(name: "x", count: 1))
        // As a store whose attributes a migration reordered: the tags run backwards.
        let names = stored.codec.tags.keys.sorted { stored.codec.tags[$0]! < stored.codec.tags[$1]! }
        var reversed: [String: UInt32] = [:]
        for (position, name) in names.enumerated() { reversed[name] = UInt32(names.count - position) }
        let tables = Store.EntityTables(
            entity: stored.entity, ordinal: stored.ordinal, records: stored.layout.records, tags: reversed,
            edges: stored.layout.edges, externals: stored.layout.externals)
        #expect(!tables.codec.fieldsAscendInPropertyOrder)
        let specimen = Specimen(name: "backwards", count: 7)
        var record = try SavePlanner.record(of: specimen, tables: tables)
        let key = EntryLayout.rowKey(1)
        let reader = try RecordReader(record.sealed(forKey: key), key: key)
        #expect(reader.tags == reader.tags.sorted())
        #expect(try reader.read(String.self, tag: reversed["name"]!) == "backwards")
        #expect(try reader.read(Int.self, tag: reversed["count"]!) == 7)
        let fault = Specimen(_$modelState: _ModelState(), _$constants: .none)
        try context.rows.apply(reader, to: fault, tables: tables)
        fault.keeper = nil  // relationships are not in the record
        #expect(values(fault) == values(specimen))
    }
}
