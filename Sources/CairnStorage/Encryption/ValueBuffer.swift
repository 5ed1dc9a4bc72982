internal import CAESGCM
import Crypto

/// A growable buffer of raw bytes that zeroes what it held before it lets the memory go: where
/// an encrypted store's values are sealed and opened.
///
/// ```swift
/// let buffer = ValueBuffer()
/// let bytes = buffer.reserve(record.count)   // valid until the next reserve
/// ```
///
/// Used by one transaction at a time, so no access to its properties overlaps another: no
/// runtime exclusivity checks (about 80 instructions each, on every value sealed or opened).
final class ValueBuffer {
    @exclusivity(unchecked) private var start: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
        start = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        cairn_gcm_wipe(start, capacity)
        start.deallocate()
    }

    /// Room for `count` bytes, at the start of the buffer: what the last reservation held is gone.
    func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if count > capacity {
            cairn_gcm_wipe(start, capacity)
            start.deallocate()
            capacity = max(count, capacity * 2)
            start = .allocate(byteCount: capacity, alignment: 16)
        }
        return UnsafeMutableRawBufferPointer(start: start, count: count)
    }
}

/// What a transaction keeps for sealing and opening values between calls: its nonces, the
/// buffer values are sealed into, each sealed table's part of the additional data, and the
/// arena lookups open values into.
///
/// Owned by one transaction handle, used by one thread at a time: no runtime exclusivity checks.
final class SealingScratch {
    /// The nonces of this transaction's writes; drawn at its first sealed write.
    @exclusivity(unchecked) var nonces: NonceSequence?
    /// Where a value is sealed before LMDB copies it into the page.
    let sealed = ValueBuffer()
    /// Each sealed table's additional data: a digest of its name, with room after it for any key
    /// (at most 511 bytes), by LMDB handle.
    @exclusivity(unchecked) private var prefixes: [UInt32: (buffer: ValueBuffer, length: Int)] = [:]
    /// The last table's handle and its entry's bytes and prefix length: a scan or a save seals
    /// and opens value after value of one table. The bytes, not the buffer: reading a class
    /// reference retained and released it, two atomic operations per value. The buffer stays
    /// alive in ``prefixes`` and was made with the room asked of it, so its bytes never move.
    @exclusivity(unchecked) private var lastHandle: UInt32 = .max
    @exclusivity(unchecked) private var lastBytes: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var lastLength = 0
    /// Where a lookup opens its value: each keeps its bytes until the transaction ends, as LMDB's
    /// own pointers do (a value looked up stays valid while the closure it was handed to looks up
    /// another on the same table).
    let lookups = ValueArena()

    /// The additional data that binds a value to `key` in `table`, valid until the next call
    /// for the same table: only the key is copied, after the table's digest kept there.
    @inline(__always)
    func additionalData(for table: borrowing Table, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if lastHandle != table.handle || lastBytes == nil { remember(table) }
        return additionalData(forHandle: table.handle, key: key).unsafelyUnwrapped
    }

    /// The same for the table of LMDB handle `handle` when it is the last one asked for, else
    /// `nil` (then ask with the table): what the sealing path asks first, with no table value
    /// to pass.
    @inline(__always)
    func additionalData(forHandle handle: UInt32, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard lastHandle == handle, let bytes = lastBytes else { return nil }
        let length = lastLength
        // A row key: one store, where copyMemory called memcpy.
        if key.count == 8 {
            (bytes + length).storeBytes(of: key.loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else if key.count > 0 {
            (bytes + length).copyMemory(from: key.baseAddress!, byteCount: key.count)
        }
        return UnsafeRawBufferPointer(start: bytes, count: length + key.count)
    }

    /// Makes `table` the last one, its prefix made on first use.
    private func remember(_ table: borrowing Table) {
        let entry: (buffer: ValueBuffer, length: Int)
        if let known = prefixes[table.handle] {
            entry = known
        } else {
            entry = Self.prefix(of: table.name)
            prefixes[table.handle] = entry
        }
        // Made with this capacity: the digest stays where it was written.
        let bytes = entry.buffer.reserve(entry.length + 512).baseAddress
        (lastHandle, lastBytes, lastLength) = (table.handle, bytes, entry.length)
    }

    /// The table's part of the additional data: the first 8 bytes of SHA-256 of its name, so a
    /// record's additional data (with its 8-byte key) is one block of the cipher's hash.
    private static func prefix(of name: String) -> (buffer: ValueBuffer, length: Int) {
        let digest = Array(SHA256.hash(data: Array(name.utf8)).prefix(8))
        let buffer = ValueBuffer(capacity: digest.count + 512)
        digest.withUnsafeBytes { buffer.reserve(digest.count).copyMemory(from: $0) }
        return (buffer, digest.count)
    }

    /// Forgets what belonged to the transaction that ended (the handle serves a renewed one).
    func transactionEnded() {
        nonces = nil
        lookups.reset()
    }
}

/// Bytes handed out one allocation after another and all taken back at once: what a
/// transaction's lookups open values into. Zeroed before they are reused or freed.
final class ValueArena {
    private static let chunkSize = 64 << 10
    // One transaction's, used by one thread at a time: no runtime exclusivity checks.
    @exclusivity(unchecked) private var chunks: [(start: UnsafeMutableRawPointer, size: Int)] = []
    @exclusivity(unchecked) private var used = 0

    deinit { reset(keeping: 0) }

    /// `count` bytes that stay valid until ``reset()``.
    func allocate(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if let last = chunks.last, last.size - used >= count {
            defer { used += (count + 15) & ~15 }
            return UnsafeMutableRawBufferPointer(start: last.start + used, count: count)
        }
        let size = max(Self.chunkSize, count)
        chunks.append((.allocate(byteCount: size, alignment: 16), size))
        used = (count + 15) & ~15
        return UnsafeMutableRawBufferPointer(start: chunks[chunks.count - 1].start, count: count)
    }

    /// Takes every allocation back, keeping one chunk for the next transaction.
    func reset() { reset(keeping: 1) }

    private func reset(keeping kept: Int) {
        for index in chunks.indices {
            // Only the last chunk is partly used.
            cairn_gcm_wipe(chunks[index].start, index == chunks.count - 1 ? used : chunks[index].size)
            if index >= kept { chunks[index].start.deallocate() }
        }
        if chunks.count > kept { chunks.removeSubrange(kept...) }
        used = 0
    }
}
