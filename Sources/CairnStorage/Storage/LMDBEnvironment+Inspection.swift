internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One slot of the store's reader table: a process that has (or had, and left parked) a read
/// transaction open.
package struct ReaderSlot: Sendable, Hashable {
    /// The process holding the slot.
    package let processIdentifier: Int32
    /// The snapshot its read transaction pins, or `nil` when the slot is idle.
    package let transactionID: UInt64?
}

/// What tools report about a store's files and readers (`cairn inspect`).
extension LMDBEnvironment {
    /// The reader table's slots in use (`mdb_reader_list`), by every process with the store open.
    ///
    /// ```swift
    /// for slot in try environment.readerSlots() { print(slot.processIdentifier) }
    /// ```
    /// - Throws: ``StorageError`` when the environment is closed.
    package func readerSlots() throws(StorageError) -> [ReaderSlot] {
        state.enterShared(nested: ThreadTransactionDepth.current > 0)
        defer { state.leaveShared() }
        final class Lines { var text = "" }
        let lines = Lines()
        do throws(LMDBError) {
            _ = mdb_reader_list(
                try state.environment(),
                { message, context in
                    guard let message, let context else { return 0 }
                    Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().text += String(cString: message)
                    return 0
                }, Unmanaged.passUnretained(lines).toOpaque())
        } catch {
            throw error.storageError(operation: "Listing the store's readers", path: path)
        }
        // "    pid     thread     txnid" then one line per slot: pid, thread (hex), txnid or "-".
        return lines.text.split(separator: "\n").dropFirst().compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let pid = Int32(parts[0]) else { return nil }
            return ReaderSlot(processIdentifier: pid, transactionID: UInt64(parts[2]))
        }
    }

    /// The number of pages on the free list of the newest snapshot: pages a write may reuse, so
    /// the file need not grow for them (`cairn compact` gives them back to the file system).
    ///
    /// ```swift
    /// print(try environment.freePages() * environment.info.pageSize, "bytes free inside the file")
    /// ```
    /// - Throws: ``StorageError`` `.damaged` when a free-list entry is malformed.
    package func freePages() throws -> Int {
        try read { txn in
            var cursor: OpaquePointer?
            // Table 0 is LMDB's free-page tree: key a transaction id, value its freed page numbers
            // as a count followed by that many page numbers (machine words).
            guard mdb_cursor_open(txn.handle.pointer, 0, &cursor) == MDB_SUCCESS, let cursor else {
                throw StorageError(code: .other, message: "The free-page list cannot be read.", path: path)
            }
            defer { mdb_cursor_close(cursor) }
            var key = MDB_val()
            var value = MDB_val()
            var total = 0
            var operation = MDB_FIRST
            let word = MemoryLayout<Int>.size
            while mdb_cursor_get(cursor, &key, &value, operation) == MDB_SUCCESS {
                operation = MDB_NEXT
                guard value.mv_size >= word, let data = value.mv_data else { continue }
                let count = data.loadUnaligned(as: Int.self)
                guard count >= 0, count <= (value.mv_size - word) / word else {
                    throw StorageError(
                        code: .damaged,
                        message: "A free-page list entry claims \(count) pages in \(value.mv_size) bytes.",
                        path: path)
                }
                total += count
            }
            return total
        }
    }

    /// Lets the kernel take back the store's mapped pages between two addresses of bytes this
    /// process read from the store (`madvise(MADV_DONTNEED)`), so a scan of a large store keeps
    /// its resident memory flat instead of growing with the file. The map is read-only, shared
    /// and backed by the file, so a page read again is mapped again from the page cache (or the
    /// disk), unchanged: nothing read before becomes invalid. For tools that stream a whole store
    /// (`cairn dump`), now and then during the scan, with the lowest and highest addresses of the
    /// keys and values the scan was given (LMDB does not tell where its map starts). Never with
    /// a sealed table's values: they are opened into this process's own memory.
    ///
    /// ```swift
    /// environment.releaseReadPages(from: lowest, to: highest)
    /// ```
    package func releaseReadPages(from start: UnsafeRawPointer, to end: UnsafeRawPointer) {
        let pageSize = Int(LMDBEnvironment.systemPageSize)
        let first = Int(bitPattern: start) & ~(pageSize - 1)
        let last = Int(bitPattern: end)
        guard last > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        // Whole pages only, each inside the map: from the first one's start to the last one's end.
        let length = (last - first + pageSize - 1) & ~(pageSize - 1)
        _ = madvise(address, length, MADV_DONTNEED)
    }

    /// The data file's size in bytes.
    ///
    /// ```swift
    /// print(environment.dataFileSize ?? 0)
    /// ```
    package var dataFileSize: Int? { Self.fileSize(StoreFiles.dataFile(in: path)) }

    /// The size of the file at `path` in bytes, or `nil` when there is none.
    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
