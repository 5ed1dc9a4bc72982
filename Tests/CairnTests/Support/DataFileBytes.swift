@testable import Cairn

/// Little-endian field access to a copy of a data file's bytes, for tests that damage files.
struct DataFileBytes {
    var storage: [UInt8]
    subscript(offset: Int) -> UInt8 { storage[offset] }
    func uint16(at offset: Int) -> UInt16 { load(at: offset) }
    func uint32(at offset: Int) -> UInt32 { load(at: offset) }
    func uint64(at offset: Int) -> UInt64 { load(at: offset) }
    private func load<T: FixedWidthInteger>(at offset: Int) -> T {
        precondition(offset + MemoryLayout<T>.size <= storage.count, "field read past the file")
        return storage.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
