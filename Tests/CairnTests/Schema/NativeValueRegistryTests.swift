import Foundation
import Testing

@testable import Cairn

/// One attribute of every native type and of its optional: the registry's list, written out.
@Model final class EveryNativeType {
    var bool = true
    var int = -1
    var int8: Int8 = -8
    var int16: Int16 = -16
    var int32: Int32 = -32
    var int64: Int64 = -64
    var uint: UInt = 1
    var uint8: UInt8 = 8
    var uint16: UInt16 = 16
    var uint32: UInt32 = 32
    var uint64: UInt64 = 64
    var float: Float = 1.5
    var double = 2.5
    var decimal = Decimal(string: "12.345")!
    var string = "s"
    var date = Date(timeIntervalSinceReferenceDate: 5)
    var data = Data([1, 2])
    var uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    var url = URL(string: "https://example.com/x")!
    var maybeBool: Bool? = false
    var maybeInt: Int? = 1
    var maybeInt8: Int8? = 1
    var maybeInt16: Int16? = 1
    var maybeInt32: Int32? = 1
    var maybeInt64: Int64? = 1
    var maybeUInt: UInt? = 1
    var maybeUInt8: UInt8? = 1
    var maybeUInt16: UInt16? = 1
    var maybeUInt32: UInt32? = 1
    var maybeUInt64: UInt64? = 1
    var maybeFloat: Float? = 1
    var maybeDouble: Double? = 1
    var maybeDecimal: Decimal? = 1
    var maybeString: String? = "t"
    var maybeDate: Date? = Date(timeIntervalSinceReferenceDate: 6)
    var maybeData: Data? = Data([3])
    var maybeUUID: UUID? = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    var maybeURL: URL? = URL(string: "file:///tmp/y")!
    init() {}
}

@Model final class KeyedPhoto {
    #Index<KeyedPhoto>([\.pixels])
    @Attribute(.externalStorage) var pixels = Data()
    init() {}
}

@Model final class DatedNote {
    var text = ""
    var when = Date(timeIntervalSinceReferenceDate: 0)
    init(_ text: String, _ when: Date) { (self.text, self.when) = (text, when) }
}

/// The registry of native value types (`Values/NativeValue.swift`) against everything that must
/// agree with it: the generated codec's concrete overloads, direct access, keys, the planner,
/// the model-free reader, the macros' list of value types and the stored type names.
@Suite struct NativeValueRegistryTests {
    /// The registry's types, by identity.
    private let registered = Set(NativeValues.all.map { ObjectIdentifier($0) })

    @Test func theRegistryListsEachTypeOnceAndTheTestModelCoversItExactly() throws {
        #expect(registered.count == NativeValues.all.count, "no type is listed twice")
        let entity = try #require(Schema([EveryNativeType.self]).entities.first)
        let types = entity.attributes.map(\.valueType)
        let plain = Set(types.compactMap { NativeValues.type(of: $0) }.filter { !$0.isOptional }.map { ObjectIdentifier($0.native) })
        let optional = Set(types.compactMap { NativeValues.type(of: $0) }.filter(\.isOptional).map { ObjectIdentifier($0.native) })
        #expect(types.allSatisfy { NativeValues.type(of: $0) != nil }, "every attribute of the model is native")
        #expect(plain == registered, "the model has one attribute of every registered type")
        #expect(optional == registered, "and one of every registered type's optional")
    }

    @Test func theGeneratedCodecHasAConcreteOverloadForEveryRegisteredType() throws {
        let model = EveryNativeType()
        let count = EveryNativeType.schemaMetadata.count
        let tags = (1...UInt32(count)).map { $0 }
        let accesses = [AttributeAccess?](repeating: nil, count: count)
        // Without general accesses, a property the concrete overloads miss is written by nobody.
        let record = try tags.withUnsafeBufferPointer { tags in
            try accesses.withUnsafeBufferPointer { accesses in
                var encoder = _FieldEncoder(tags: tags, accesses: accesses, model: model, writer: RecordWriter())
                try model._$encodeFields(into: &encoder)
                #expect(!encoder.isIncomplete)
                return encoder.writer.finished()
            }
        }
        let reader = try RecordReader(record)
        for tag in tags {
            #expect(reader.payload(tag: tag) != nil, "field \(tag) was written by a concrete overload")
        }
        // Decoding: a concrete overload loads every field; none is deferred to the general codec.
        let fault = EveryNativeType(_$modelState: _ModelState(), _$constants: .none)
        let deferred = try tags.withUnsafeBufferPointer { tags in
            var decoder = _FieldDecoder(reader: reader, tags: tags, only: nil)
            try fault._$decodeFields(from: &decoder)
            return decoder.deferred
        }
        #expect(deferred.isEmpty, "properties left to the general codec: \(deferred)")
        #expect(fault.decimal == model.decimal && fault.url == model.url && fault.maybeURL == model.maybeURL)
    }

    @Test func everyAttributeOfTheModelHasAKeyAndThePlannerFollowsTheRegistry() throws {
        let entity = try #require(Schema([EveryNativeType.self]).entities.first)
        let model = EveryNativeType()
        for attribute in entity.attributes {
            let access = try #require(attribute.access)
            let appendKey = try #require(access.appendKey, "\(attribute.name) has a key encoding")
            var key = KeyBuilder()
            #expect(appendKey(model, &key))
            #expect(!key.finalized().isEmpty)
            let native = try #require(NativeValues.type(of: attribute.valueType)?.native)
            #expect(
                PredicatePlanner.keyOrderIsComparableOrder(attribute.valueType) == native.keyOrderIsValueOrder,
                "\(attribute.name): the planner follows the registry")
        }
    }

    @Test func storedNamesResolveOnEitherPlatformsSpelling() {
        for type in NativeValues.all {
            #expect(NativeValues.named(type.storedTypeName).map(ObjectIdentifier.init) == ObjectIdentifier(type))
            #expect(!type.storedTypeName.contains("FoundationEssentials"))
        }
        #expect(NativeValues.named("FoundationEssentials.Date").map(ObjectIdentifier.init) == ObjectIdentifier(Date.self))
        #expect(NativeValues.named("Foundation.Decimal").map(ObjectIdentifier.init) == ObjectIdentifier(Decimal.self))
        #expect(
            StoredTypeName.canonical("Swift.Dictionary<FoundationEssentials.UUID, MyFoundationEssentials.Thing>")
                == "Swift.Dictionary<Foundation.UUID, MyFoundationEssentials.Thing>")
    }

    @Test func theModelFreeReaderReadsEveryRegisteredTypeAsWritten() throws {
        let model = EveryNativeType()
        let entity = try #require(Schema([EveryNativeType.self]).entities.first)
        for attribute in entity.attributes where !attribute.isOptional {
            var writer = RecordWriter()
            try attribute.access!.encode(model, 1, &writer)
            let field = try #require(try RecordReader(writer.finished()).payload(tag: 1))
            let name = StoredEntity.typeName(attribute.valueType)
            let value = try StoredValue(field: field, type: name)
            let native = try #require(NativeValues.type(of: attribute.valueType)?.native)
            #expect(try value == native.storedValue(of: field), "\(name)")
            if case .bytes = value, native != Data.self { Issue.record("\(name) read as bytes") }
        }
    }

    @Test func theMacrosKnowEveryRegisteredTypeIsNoModel() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CairnMacros/PropertyType.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        let list = try #require(text.firstRange(of: "valueTypeNames: Set<String> = ["))
        let names = text[list.upperBound...].prefix { $0 != "]" }
        for type in NativeValues.all {
            let short = "\"\(type.storedTypeName.split(separator: ".").last!)\""
            #expect(names.contains(short), "the macros' list of value types has \(short)")
        }
    }

    @Test func aKeyOnAnAttributeStoredOutsideItsRecordIsRefusedAtOpen() throws {
        let directory = TemporaryDirectory()
        #expect {
            try makeContainer(KeyedPhoto.self, in: directory)
        } throws: { error in
            guard let error = error as? SchemaError else { return false }
            return error.code == .invalidConstraint && error.property == "pixels"
                && error.message.contains(".externalStorage")
        }
    }

    /// A store written where Foundation's types are named `FoundationEssentials.Date` (Linux) or
    /// `Foundation.Date` (Apple platforms) opens on the other.
    @Test(arguments: ["FoundationEssentials.Date", "Foundation.Date"])
    func aStoreOpensWhateverSpellingItsDescriptionHasForFoundationTypes(_ spelling: String) throws {
        let directory = TemporaryDirectory()
        let key = StoreLayout.entityDescriptionKey("DatedNote")
        do {
            let container = try makeContainer(DatedNote.self, in: directory)
            let context = ModelContext(container)
            context.insert(DatedNote("a", Date(timeIntervalSinceReferenceDate: 42)))
            try context.save()
            try container.store.environment.write { txn in
                let value = try #require(try txn.get(key, in: container.store.meta))
                var stored = try BinaryDecoder().decode(StoredEntity.self, from: try EntryLayout.metaPayload(value, key: key))
                let index = try #require(stored.attributes.firstIndex { $0.name == "when" })
                #expect(stored.attributes[index].type == "Foundation.Date", "recorded in the shared spelling")
                stored.attributes[index].type = spelling
                try txn.put(EntryLayout.metaValue(try BinaryEncoder().encode(stored), key: key), for: key, in: container.store.meta)
            }
        }
        let reopened = try makeContainer(DatedNote.self, in: directory)
        let notes = try ModelContext(reopened).fetch(FetchDescriptor<DatedNote>())
        #expect(notes.map(\.when) == [Date(timeIntervalSinceReferenceDate: 42)])
        let dump = try StoreInspector(path: directory.child("Test.store")).descriptions["DatedNote"]
        #expect(dump?.attributes.first { $0.name == "when" }?.type == spelling, "a matching description is not rewritten")
    }
}
