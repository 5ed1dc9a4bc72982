import Foundation
import Testing

@testable import Cairn

@Model
final class EveryBuiltInType {
    var text: String
    var number: Int = 7
    var wide: Int64
    var real: Double
    var flag: Bool
    var moment: Date
    var identifier: UUID
    var blob: Data
    var int32: Int32
    var int16: Int16
    var int8: Int8
    var unsigned: UInt
    var unsigned64: UInt64
    var unsigned32: UInt32
    var unsigned16: UInt16
    var unsigned8: UInt8
    var single: Float
    var price: Decimal
    var link: URL
    var maybeText: String?
    var maybeNumber: Int? = 3
    var maybeDate: Date?
    var maybePrice: Decimal?
    var maybeLink: URL?
    var format: BookFormat = BookFormat.paperback
    var size: BookDimensions?

    init() {
        text = "caf\u{E9} \u{1F600}"
        wide = -(1 << 40)
        real = -0.5
        flag = true
        moment = Date(timeIntervalSinceReferenceDate: 123_456.75)
        identifier = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        blob = Data([0, 255, 7])
        int32 = -32
        int16 = 16
        int8 = -8
        unsigned = 1 << 63
        unsigned64 = .max
        unsigned32 = 32
        unsigned16 = 16
        unsigned8 = 8
        single = 1.5
        price = Decimal(string: "-1234.5678")!
        link = URL(string: "https://example.com/a%20b?q=1")!
        maybePrice = Decimal(string: "0.001")!
        maybeText = "x"
        maybeDate = nil
        size = BookDimensions(width: 1, height: 2)
    }
}

@Model final class DirectOwner {
    var name: String = ""
    @Relationship(inverse: \DirectItem.owner) var items: [DirectItem] = []
    var best: DirectItem?
    init() {}
}

@Model final class DirectItem {
    var label: String = ""
    var owner: DirectOwner?
    init(_ label: String) { self.label = label }
}

/// The direct attribute access (field offsets, specialized closures) against the general one
/// (key paths and codecs): same bytes, same keys, same decoding, same errors.
@Suite struct DirectAttributeAccessTests {
    @Test func everyBuiltInTypeUsesDirectAccessAndAgreesWithTheGeneralPath() throws {
        try check("text", String.self, absent: .damaged)
        try check("number", Int.self, absent: .value(7))
        try check("wide", Int64.self, absent: .damaged)
        try check("real", Double.self, absent: .damaged)
        try check("flag", Bool.self, absent: .damaged)
        try check("moment", Date.self, absent: .damaged)
        try check("identifier", UUID.self, absent: .damaged)
        try check("blob", Data.self, absent: .damaged)
        try check("int32", Int32.self, absent: .damaged)
        try check("int16", Int16.self, absent: .damaged)
        try check("int8", Int8.self, absent: .damaged)
        try check("unsigned", UInt.self, absent: .damaged)
        try check("unsigned64", UInt64.self, absent: .damaged)
        try check("unsigned32", UInt32.self, absent: .damaged)
        try check("unsigned16", UInt16.self, absent: .damaged)
        try check("unsigned8", UInt8.self, absent: .damaged)
        try check("single", Float.self, absent: .damaged)
        try check("price", Decimal.self, absent: .damaged)
        try check("link", URL.self, absent: .damaged)
        try check("maybeText", String?.self, absent: .value(nil))
        try check("maybeNumber", Int?.self, absent: .value(nil))
        try check("maybeDate", Date?.self, absent: .value(nil))
        try check("maybePrice", Decimal?.self, absent: .value(nil))
        try check("maybeLink", URL?.self, absent: .value(nil))
    }

    @Test func otherTypesKeepTheGeneralPath() throws {
        #expect(try parts("format", BookFormat.self).direct == nil)
        #expect(try parts("size", BookDimensions?.self).direct == nil)
    }

    @Test func relationshipsAreReadAndWrittenAtTheirFieldOffsets() throws {
        let container = try makeContainer(inMemory: DirectOwner.self, DirectItem.self)
        let context = ModelContext(container)
        let owner = DirectOwner()
        let (first, second) = (DirectItem("a"), DirectItem("b"))
        owner.items = [first, second]
        owner.best = second
        context.insert(owner)
        for (name, type) in [
            ("items", _PersistedValue<[DirectItem]>.self), ("best", _PersistedValue<DirectItem?>.self),
        ]
            as [(String, Any.Type)]
        {
            #expect(
                storageOffset(in: DirectOwner.self, field: "_$" + name, type: type) != nil,
                "\(name) has a field offset")
        }
        let entity = try #require(container.schema.entities.first { $0.name == "DirectOwner" })
        let items = try #require(entity.relationshipsByName["items"]?.access)
        let best = try #require(entity.relationshipsByName["best"]?.access)
        #expect(items.isLoaded(owner) && best.isLoaded(owner))
        #expect(items.targets(owner).map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init))
        #expect(best.targets(owner).map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
        items.load(owner, [second])
        #expect(owner.items.map(\.label) == ["b"])
        #expect(items.hasTargets(owner) && best.hasTargets(owner))
        items.unload(owner)
        #expect(!items.isLoaded(owner) && best.isLoaded(owner))
        #expect(!items.hasTargets(owner), "an unloaded relationship has no loaded targets")
        items.load(owner, [])
        #expect(!items.hasTargets(owner))
        items.load(owner, [first, second])
        #expect(owner.items.map(\.label) == ["a", "b"] && items.hasTargets(owner))
        best.load(owner, [])
        #expect(!best.hasTargets(owner) && owner.best == nil)
    }

    // MARK: Helpers

    enum Absent<V> {
        case damaged
        case value(V)
    }

    private func parts<V>(
        _ name: String, _: V.Type
    ) throws -> (
        storage: ReferenceWritableKeyPath<EveryBuiltInType, _PersistedValue<V>>, general: AttributeAccess,
        direct: AttributeAccess?
    ) {
        let property = try #require(EveryBuiltInType.schemaMetadata.first { $0.name == name })
        let storage = try #require(property.storage as? ReferenceWritableKeyPath<EveryBuiltInType, _PersistedValue<V>>)
        let defaultValue = property.defaultValue.map { $0 as! V }
        let general = try #require(AttributeAccess.general(storage, name: name, defaultValue: defaultValue))
        let direct = AttributeAccess.direct(
            EveryBuiltInType.self, V.self, name: name, entity: "EveryBuiltInType", defaultValue: defaultValue,
            general: general)
        return (storage, general, direct)
    }

    private func check<V: Equatable>(_ name: String, _ type: V.Type, absent: Absent<V>) throws {
        let (storage, general, maybeDirect) = try parts(name, V.self)
        let direct = try #require(maybeDirect, "\(name) (\(V.self)) should use direct access")
        let model = EveryBuiltInType()
        let value = model[keyPath: storage].value

        // The field offset is where the key path points.
        let target = model
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(model).toOpaque())
        let address = withUnsafeMutablePointer(to: &target[keyPath: storage]) { UnsafeMutableRawPointer($0) }
        #expect(
            storageOffset(in: EveryBuiltInType.self, field: "_$" + name, type: _PersistedValue<V>.self)
                == address - base, "\(name): offset")

        // The same bytes, the same keys.
        var viaGeneral = RecordWriter()
        try general.encode(model, 3, &viaGeneral)
        var viaDirect = RecordWriter()
        try direct.encode(model, 3, &viaDirect)
        let record = viaGeneral.finished()
        #expect(viaDirect.finished() == record, "\(name): record bytes")
        var generalKey = KeyBuilder()
        _ = general.appendKey?(model, &generalKey)
        var directKey = KeyBuilder()
        _ = direct.appendKey?(model, &directKey)
        #expect(generalKey.finalized() == directKey.finalized(), "\(name): key bytes")
        #expect(direct.appendKey != nil)

        // Loading: unloaded, then decoded by the direct path from the general path's record.
        #expect(direct.isLoaded(model))
        direct.unload(model)
        #expect(!direct.isLoaded(model) && !general.isLoaded(model))
        try direct.decode(model, 3, try RecordReader(record))
        #expect(direct.isLoaded(model))
        #expect(model[keyPath: storage].value == value, "\(name): decoded value")
        // A loaded value is left alone.
        try direct.decode(model, 3, try RecordReader(RecordWriter().finished()))
        #expect(model[keyPath: storage].value == value)

        // A record without the field.
        direct.unload(model)
        let empty = try RecordReader(RecordWriter().finished())
        switch absent {
        case .damaged:
            #expect(throws: StorageError.self) { try direct.decode(model, 3, empty) }
            #expect(!direct.isLoaded(model))
        case .value(let expected):
            try direct.decode(model, 3, empty)
            #expect(model[keyPath: storage].value == expected, "\(name): absent field")
        }
    }
}
