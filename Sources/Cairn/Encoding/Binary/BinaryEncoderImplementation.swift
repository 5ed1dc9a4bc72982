/// The `Encoder` that ``BinaryEncoder`` hands to `encode(to:)`, writing into one slot.
struct BinaryEncoderImplementation: Encoder {
    let slot: BinaryEncodingSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyed: BinaryEncodingSlot.Keyed
        if case .keyed(let existing) = slot.node {
            keyed = existing
        } else {
            keyed = BinaryEncodingSlot.Keyed()
            slot.node = .keyed(keyed)
        }
        return KeyedEncodingContainer(KeyedContainer(keyed: keyed, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let unkeyed: BinaryEncodingSlot.Unkeyed
        if case .unkeyed(let existing) = slot.node {
            unkeyed = existing
        } else {
            unkeyed = BinaryEncodingSlot.Unkeyed()
            slot.node = .unkeyed(unkeyed)
        }
        return UnkeyedContainer(unkeyed: unkeyed, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(slot: slot, codingPath: codingPath)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let keyed: BinaryEncodingSlot.Keyed
        let codingPath: [any CodingKey]

        private func slot(_ key: Key) -> BinaryEncodingSlot { keyed.slot(for: key.stringValue) }

        mutating func encodeNil(forKey key: Key) throws { slot(key).node = .null }
        mutating func encode(_ value: Bool, forKey key: Key) throws { slot(key).node = .bool(value) }
        mutating func encode(_ value: String, forKey key: Key) throws { slot(key).node = .string(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { slot(key).node = .float64(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { slot(key).node = .float32(value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { slot(key).node = .signed(Int64(value)) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { slot(key).node = .signed(Int64(value)) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { slot(key).node = .signed(Int64(value)) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { slot(key).node = .signed(Int64(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { slot(key).node = .signed(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { slot(key).node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { slot(key).node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { slot(key).node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { slot(key).node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { slot(key).node = .unsigned(value) }

        mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
            try BinaryEncodingSlot.encode(value, into: slot(key), codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            BinaryEncoderImplementation(slot: slot(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            BinaryEncoderImplementation(slot: slot(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let key = BinaryCodingKey(stringValue: "super")
            return BinaryEncoderImplementation(slot: keyed.slot(for: key.stringValue), codingPath: codingPath + [key])
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            BinaryEncoderImplementation(slot: slot(key), codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let unkeyed: BinaryEncodingSlot.Unkeyed
        let codingPath: [any CodingKey]
        var count: Int { unkeyed.slots.count }

        private func append(_ node: BinaryEncodingSlot.Node) { unkeyed.appendSlot().node = node }
        private var nextKey: BinaryCodingKey { BinaryCodingKey(intValue: count) }

        mutating func encodeNil() throws { append(.null) }
        mutating func encode(_ value: Bool) throws { append(.bool(value)) }
        mutating func encode(_ value: String) throws { append(.string(value)) }
        mutating func encode(_ value: Double) throws { append(.float64(value)) }
        mutating func encode(_ value: Float) throws { append(.float32(value)) }
        mutating func encode(_ value: Int) throws { append(.signed(Int64(value))) }
        mutating func encode(_ value: Int8) throws { append(.signed(Int64(value))) }
        mutating func encode(_ value: Int16) throws { append(.signed(Int64(value))) }
        mutating func encode(_ value: Int32) throws { append(.signed(Int64(value))) }
        mutating func encode(_ value: Int64) throws { append(.signed(value)) }
        mutating func encode(_ value: UInt) throws { append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt8) throws { append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt16) throws { append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt32) throws { append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt64) throws { append(.unsigned(value)) }

        mutating func encode<Value: Encodable>(_ value: Value) throws {
            let path = codingPath + [nextKey]
            try BinaryEncodingSlot.encode(value, into: unkeyed.appendSlot(), codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let path = codingPath + [nextKey]
            return BinaryEncoderImplementation(slot: unkeyed.appendSlot(), codingPath: path).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = codingPath + [nextKey]
            return BinaryEncoderImplementation(slot: unkeyed.appendSlot(), codingPath: path).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let path = codingPath + [nextKey]
            return BinaryEncoderImplementation(slot: unkeyed.appendSlot(), codingPath: path)
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let slot: BinaryEncodingSlot
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { slot.node = .null }
        mutating func encode(_ value: Bool) throws { slot.node = .bool(value) }
        mutating func encode(_ value: String) throws { slot.node = .string(value) }
        mutating func encode(_ value: Double) throws { slot.node = .float64(value) }
        mutating func encode(_ value: Float) throws { slot.node = .float32(value) }
        mutating func encode(_ value: Int) throws { slot.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int8) throws { slot.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int16) throws { slot.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int32) throws { slot.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int64) throws { slot.node = .signed(value) }
        mutating func encode(_ value: UInt) throws { slot.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt8) throws { slot.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt16) throws { slot.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt32) throws { slot.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt64) throws { slot.node = .unsigned(value) }

        mutating func encode<Value: Encodable>(_ value: Value) throws {
            try BinaryEncodingSlot.encode(value, into: slot, codingPath: codingPath)
        }
    }
}

/// A coding key for positions the binary coder invents: array indices and `super`.
struct BinaryCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
