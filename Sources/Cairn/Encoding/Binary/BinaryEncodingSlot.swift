import Foundation

/// One value position in the tree the binary encoder builds before serializing it.
///
/// Codable hands out containers that keep being written after they are created (nested
/// containers, `superEncoder`), so the encoder first records values in reference-typed slots and
/// serializes the finished tree at the end, when every container's byte length is known.
final class BinaryEncodingSlot {
    enum Node {
        case null
        case bool(Bool)
        case signed(Int64)
        case unsigned(UInt64)
        case float32(Float)
        case float64(Double)
        case string(String)
        case bytes([UInt8])
        case keyed(Keyed)
        case unkeyed(Unkeyed)
    }

    final class Keyed {
        var keys: [String] = []
        var slots: [BinaryEncodingSlot] = []
        var indexByKey: [String: Int] = [:]

        func slot(for key: String) -> BinaryEncodingSlot {
            if let index = indexByKey[key] { return slots[index] }
            let slot = BinaryEncodingSlot()
            indexByKey[key] = slots.count
            keys.append(key)
            slots.append(slot)
            return slot
        }
    }

    final class Unkeyed {
        var slots: [BinaryEncodingSlot] = []

        func appendSlot() -> BinaryEncodingSlot {
            let slot = BinaryEncodingSlot()
            slots.append(slot)
            return slot
        }
    }

    var node: Node?

    static func encode<Value: Encodable>(
        _ value: Value,
        into slot: BinaryEncodingSlot,
        codingPath: [any CodingKey]
    ) throws {
        guard codingPath.count <= BinaryFormat.maximumDepth else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Values nest more than \(BinaryFormat.maximumDepth) levels deep.")
            )
        }
        // Data and UUID would otherwise encode byte by byte (Data) or as a 36-character string.
        if let data = value as? Data {
            slot.node = .bytes(Array(data))
        } else if let uuid = value as? UUID {
            slot.node = .bytes(withUnsafeBytes(of: uuid.uuid) { Array($0) })
        } else {
            try value.encode(to: BinaryEncoderImplementation(slot: slot, codingPath: codingPath))
        }
    }

    func serialize(into bytes: inout [UInt8]) {
        switch node {
        case nil:
            // A value whose encode(to:) wrote nothing is an empty keyed container, as in JSON.
            bytes.append(BinaryFormat.Tag.keyed.rawValue)
            bytes.append(1)
            bytes.append(0)
        case .null:
            bytes.append(BinaryFormat.Tag.null.rawValue)
        case .bool(let value):
            bytes.append(value ? BinaryFormat.Tag.true.rawValue : BinaryFormat.Tag.false.rawValue)
        case .signed(let value):
            bytes.append(BinaryFormat.Tag.signed.rawValue)
            Varint.append(Varint.zigzag(value), to: &bytes)
        case .unsigned(let value):
            bytes.append(BinaryFormat.Tag.unsigned.rawValue)
            Varint.append(value, to: &bytes)
        case .float32(let value):
            bytes.append(BinaryFormat.Tag.float32.rawValue)
            let bits = value.bitPattern
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        case .float64(let value):
            bytes.append(BinaryFormat.Tag.float64.rawValue)
            let bits = value.bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        case .string(let value):
            bytes.append(BinaryFormat.Tag.string.rawValue)
            Varint.append(UInt64(value.utf8.count), to: &bytes)
            bytes.append(contentsOf: value.utf8)
        case .bytes(let value):
            bytes.append(BinaryFormat.Tag.bytes.rawValue)
            Varint.append(UInt64(value.count), to: &bytes)
            bytes.append(contentsOf: value)
        case .keyed(let keyed):
            let order = keyed.keys.indices.sorted { keyed.keys[$0].utf8.lexicographicallyPrecedes(keyed.keys[$1].utf8) }
            writeContainer(tag: .keyed, count: order.count, into: &bytes) { bytes in
                for index in order {
                    let key = keyed.keys[index]
                    Varint.append(UInt64(key.utf8.count), to: &bytes)
                    bytes.append(contentsOf: key.utf8)
                    keyed.slots[index].serialize(into: &bytes)
                }
            }
        case .unkeyed(let unkeyed):
            writeContainer(tag: .unkeyed, count: unkeyed.slots.count, into: &bytes) { bytes in
                for slot in unkeyed.slots { slot.serialize(into: &bytes) }
            }
        }
    }

    private func writeContainer(
        tag: BinaryFormat.Tag,
        count: Int,
        into bytes: inout [UInt8],
        contents: (inout [UInt8]) -> Void
    ) {
        bytes.append(tag.rawValue)
        let lengthIndex = bytes.count
        bytes.append(0)
        Varint.append(UInt64(count), to: &bytes)
        contents(&bytes)
        let length = bytes.count - lengthIndex - 1
        if length < 0x80 {
            bytes[lengthIndex] = UInt8(length)
        } else {
            var prefix: [UInt8] = []
            Varint.append(UInt64(length), to: &prefix)
            bytes.replaceSubrange(lengthIndex...lengthIndex, with: prefix)
        }
    }
}
