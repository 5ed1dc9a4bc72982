extension BinaryDecoderImplementation {
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        private struct Entry {
            var key: Range<Int>
            var value: Range<Int>
        }

        private let decoder: BinaryDecoderImplementation
        private let entries: [Entry]
        var codingPath: [any CodingKey] { decoder.codingPath }

        init(decoder: BinaryDecoderImplementation) throws {
            self.decoder = decoder
            var scanner = try decoder.contents(expecting: .keyed, as: [String: Any].self)
            let count = try scanner.readVarint()
            // Every entry takes at least two bytes (key length, value tag): check the claimed
            // count against the bytes before reserving anything for it.
            guard count <= UInt64(scanner.end - scanner.position) / 2 else {
                throw scanner.corrupted(
                    "A keyed container claims \(count) entries in \(scanner.end - scanner.position) bytes.")
            }
            var entries: [Entry] = []
            entries.reserveCapacity(Int(count))
            for _ in 0..<count {
                let keyLength = try scanner.readLength()
                let key = scanner.position..<(scanner.position + keyLength)
                scanner.position = key.upperBound
                guard String(validating: decoder.bytes[key], as: UTF8.self) != nil else {
                    throw scanner.corrupted("A key at byte \(key.lowerBound) is not valid UTF-8.")
                }
                if let previous = entries.last {
                    guard decoder.bytes[previous.key].lexicographicallyPrecedes(decoder.bytes[key]) else {
                        throw scanner.corrupted("The keys at byte \(key.lowerBound) are duplicated or out of order.")
                    }
                }
                let valueStart = scanner.position
                let valueEnd = try scanner.skipValue()
                entries.append(Entry(key: key, value: valueStart..<valueEnd))
            }
            guard scanner.position == scanner.end else {
                throw scanner.corrupted(
                    "A keyed container has \(scanner.end - scanner.position) bytes after its last entry.")
            }
            self.entries = entries
        }

        var allKeys: [Key] {
            entries.compactMap { Key(stringValue: String(decoding: decoder.bytes[$0.key], as: UTF8.self)) }
        }

        private func entryIndex(_ key: Key) -> Int? {
            let wanted = Array(key.stringValue.utf8)
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                let stored = decoder.bytes[entries[middle].key]
                if stored.lexicographicallyPrecedes(wanted) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            guard low < entries.count, decoder.bytes[entries[low].key].elementsEqual(wanted) else { return nil }
            return low
        }

        func contains(_ key: Key) -> Bool { entryIndex(key) != nil }

        private func child(_ key: Key) throws -> BinaryDecoderImplementation {
            guard let index = entryIndex(key) else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\".")
                )
            }
            return BinaryDecoderImplementation(
                bytes: decoder.bytes, range: entries[index].value, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeBool() }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeString() }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeDouble() }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decodeFloat() }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeInteger(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeInteger(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeInteger(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeInteger(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeInteger(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeInteger(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeInteger(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeInteger(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeInteger(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeInteger(type) }

        func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
            let child = try child(key)
            return try BinaryDecoderImplementation.decode(
                type, bytes: child.bytes, range: child.range, codingPath: child.codingPath)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            let superKey = BinaryCodingKey(stringValue: "super")
            guard let key = Key(stringValue: superKey.stringValue) else {
                // Keys of this type cannot name "super"; look the entry up by its bytes instead.
                let found = entries.first { decoder.bytes[$0.key].elementsEqual("super".utf8) }
                guard let found else {
                    throw DecodingError.keyNotFound(
                        superKey, .init(codingPath: codingPath, debugDescription: "No super value."))
                }
                return BinaryDecoderImplementation(
                    bytes: decoder.bytes, range: found.value, codingPath: codingPath + [superKey])
            }
            return try child(key)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            try child(key)
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        private let decoder: BinaryDecoderImplementation
        private var position: Int
        private let end: Int
        private let total: Int
        private(set) var currentIndex = 0
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { total }
        var isAtEnd: Bool { currentIndex >= total }

        init(decoder: BinaryDecoderImplementation) throws {
            self.decoder = decoder
            var scanner = try decoder.contents(expecting: .unkeyed, as: [Any].self)
            let count = try scanner.readVarint()
            guard count <= UInt64(scanner.end - scanner.position) else {
                throw scanner.corrupted(
                    "An unkeyed container claims \(count) values in \(scanner.end - scanner.position) bytes.")
            }
            position = scanner.position
            end = scanner.end
            total = Int(count)
            // Validate the whole container up front, so a count that disagrees with the bytes is
            // reported once, here, whatever the caller decodes.
            for _ in 0..<total { _ = try scanner.skipValue() }
            guard scanner.position == scanner.end else {
                throw scanner.corrupted(
                    "An unkeyed container has \(scanner.end - scanner.position) bytes after its last value.")
            }
        }

        private func peek() throws -> (child: BinaryDecoderImplementation, next: Int) {
            let key = BinaryCodingKey(intValue: currentIndex)
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self,
                    .init(codingPath: codingPath + [key], debugDescription: "The unkeyed container is at its end.")
                )
            }
            var scanner = BinaryFormat.Scanner(
                bytes: decoder.bytes, position: position, end: end, codingPath: codingPath)
            let next = try scanner.skipValue()
            let child = BinaryDecoderImplementation(
                bytes: decoder.bytes, range: position..<next, codingPath: codingPath + [key])
            return (child, next)
        }

        private mutating func decodeNext<Value>(_ body: (BinaryDecoderImplementation) throws -> Value) throws -> Value {
            let (child, next) = try peek()
            let value = try body(child)
            position = next
            currentIndex += 1
            return value
        }

        mutating func decodeNil() throws -> Bool {
            let (child, next) = try peek()
            guard child.decodeNil() else { return false }
            position = next
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeNext { try $0.decodeBool() } }
        mutating func decode(_ type: String.Type) throws -> String { try decodeNext { try $0.decodeString() } }
        mutating func decode(_ type: Double.Type) throws -> Double { try decodeNext { try $0.decodeDouble() } }
        mutating func decode(_ type: Float.Type) throws -> Float { try decodeNext { try $0.decodeFloat() } }
        mutating func decode(_ type: Int.Type) throws -> Int { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeNext { try $0.decodeInteger(type) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeNext { try $0.decodeInteger(type) } }

        mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try decodeNext {
                try BinaryDecoderImplementation.decode(
                    type, bytes: $0.bytes, range: $0.range, codingPath: $0.codingPath)
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try decodeNext { try $0.container(keyedBy: type) }
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try decodeNext { try $0.unkeyedContainer() }
        }

        mutating func superDecoder() throws -> any Decoder {
            try decodeNext { $0 }
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: BinaryDecoderImplementation
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.decodeNil() }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
        func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
        func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
        func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat() }
        func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }

        func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try BinaryDecoderImplementation.decode(
                type, bytes: decoder.bytes, range: decoder.range, codingPath: codingPath)
        }
    }
}
