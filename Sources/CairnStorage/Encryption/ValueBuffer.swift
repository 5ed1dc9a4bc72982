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
    /// Buffers handed out by lookups that could not use their table's kept cursor: valid until
    /// the transaction ends, as LMDB's own pointers are.
    var lookups: [ValueBuffer] = []

    /// The additional data that binds a value to `key` in `table`, valid until the next call.
    func additionalData(for table: Table, key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let prefix: [UInt8]
        if let known = prefixes[table.handle] {
            prefix = known
        } else {
            prefix = Array(table.name.utf8) + [0]
            prefixes[table.handle] = prefix
        }
        let bytes = additionalData.reserve(prefix.count + key.count)
        prefix.withUnsafeBytes { bytes.copyMemory(from: $0) }
        if key.count > 0 { UnsafeMutableRawBufferPointer(rebasing: bytes[prefix.count...]).copyMemory(from: key) }
        return UnsafeRawBufferPointer(bytes)
    }

    /// Forgets what belonged to the transaction that ended (the handle serves a renewed one).
    func transactionEnded() {
        nonces = nil
        lookups.removeAll()
    }
}
