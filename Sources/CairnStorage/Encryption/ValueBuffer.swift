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
    /// Where the additional data (table name, zero, key) is assembled.
    let additionalData = ValueBuffer(capacity: 600)
    /// Each sealed table's name and a zero byte, by LMDB handle.
    private var prefixes: [UInt32: [UInt8]] = [:]
    /// The table whose prefix ``additionalData`` holds now, and its length: a scan or a save
    /// seals and opens value after value of one table, and then only the key is copied.
    private var prefixHandle: UInt32?
    private var prefixLength = 0
    /// Where a lookup opens its value: each keeps its bytes until the transaction ends, as LMDB's
    /// own pointers do (a value looked up stays valid while the closure it was handed to looks up
    /// another on the same table).
    let lookups = ValueArena()

    /// The additional data that binds a value to `key` in `table`, valid until the next call.
    func additionalData(for table: Table, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if prefixHandle != table.handle {
            let prefix = prefixes[table.handle] ?? Array(table.name.utf8) + [0]
            prefixes[table.handle] = prefix
            let bytes = additionalData.reserve(prefix.count + 512)
            prefix.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[..<prefix.count]).copyMemory(from: $0) }
            (prefixHandle, prefixLength) = (table.handle, prefix.count)
        }
        // The buffer holds the prefix and room for any key (at most 511 bytes).
        let bytes = additionalData.reserve(prefixLength + 512)
        if key.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: bytes[prefixLength..<prefixLength + key.count]).copyMemory(from: key)
        }
        return UnsafeRawBufferPointer(rebasing: bytes[..<(prefixLength + key.count)])
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
