internal import CAESGCM

/// A growable buffer of raw bytes that zeroes what it held before it lets the memory go: where
/// an encrypted store's values are sealed and opened.
///
/// ```swift
/// let buffer = ValueBuffer()
/// let bytes = buffer.reserve(record.count)   // valid until the next reserve
/// ```
final class ValueBuffer {
    private var start: UnsafeMutableRawPointer
    private var capacity: Int

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
/// buffers values are sealed into, and each sealed table's name as additional data.
final class SealingScratch {
    /// The nonces of this transaction's writes; drawn at its first sealed write.
    var nonces: NonceSequence?
    /// Where a value is sealed before LMDB copies it into the page.
    let sealed = ValueBuffer()
    /// Each sealed table's additional data: its name and a zero byte, with room after them for
    /// any key (at most 511 bytes), by LMDB handle.
    private var prefixes: [UInt32: (buffer: ValueBuffer, length: Int)] = [:]
    /// The last table's entry: a scan or a save seals and opens value after value of one table.
    private var lastHandle: UInt32?
    private var last: (buffer: ValueBuffer, length: Int)?
    /// Where a lookup opens its value: each keeps its bytes until the transaction ends, as LMDB's
    /// own pointers do (a value looked up stays valid while the closure it was handed to looks up
    /// another on the same table).
    let lookups = ValueArena()

    /// The additional data that binds a value to `key` in `table`, valid until the next call
    /// for the same table: only the key is copied, after the name kept there.
    func additionalData(for table: Table, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let entry: (buffer: ValueBuffer, length: Int)
        if lastHandle == table.handle, let last {
            entry = last
        } else {
            entry = prefixes[table.handle] ?? Self.prefix(of: table)
            prefixes[table.handle] = entry
            (lastHandle, last) = (table.handle, entry)
        }
        // Made with this capacity: the name stays where it was written.
        let bytes = entry.buffer.reserve(entry.length + 512)
        if key.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: bytes[entry.length..<entry.length + key.count]).copyMemory(from: key)
        }
        return UnsafeRawBufferPointer(rebasing: bytes[..<(entry.length + key.count)])
    }

    private static func prefix(of table: Table) -> (buffer: ValueBuffer, length: Int) {
        let name = Array(table.name.utf8) + [0]
        let buffer = ValueBuffer(capacity: name.count + 512)
        name.withUnsafeBytes { buffer.reserve(name.count).copyMemory(from: $0) }
        return (buffer, name.count)
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
    private var chunks: [(start: UnsafeMutableRawPointer, size: Int)] = []
    private var used = 0

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
