extension RecordReader {
    /// A record with this record's fields and, where this record has no field of that tag, the
    /// fields of `older` whose tags are in `kept`, in ascending tag order: how a save keeps the
    /// fields a newer version of the app wrote, which this version's schema does not know
    /// (unknown-field preservation, as Protocol Buffers does it), so that a downgrade loses
    /// nothing.
    ///
    /// ```swift
    /// var merged = new.merging(kept: [7], from: stored)   // stored's field 7 rides along
    /// try txn.put(merged.sealed(forRow: row), for: EntryLayout.rowKey(row), in: records)
    /// ```
    /// - Returns: The merged record, sealed for no key; `nil` when `older` carries none of
    ///   `kept` that this record lacks (nothing to keep: write this record as it is).
    package func merging(kept: Set<UInt32>, from older: RecordReader) -> EncodedRecord? {
        let carried = older.tags.filter { kept.contains($0) && !contains(tag: $0) }
        guard !carried.isEmpty else { return nil }
        let own = tags
        var writer = RecordWriter(capacity: bytes.count + older.bytes.count)
        var (ownIndex, carriedIndex) = (0, 0)
        while ownIndex < own.count || carriedIndex < carried.count {
            let takeOwn =
                carriedIndex == carried.count || (ownIndex < own.count && own[ownIndex] < carried[carriedIndex])
            let (reader, tag) = takeOwn ? (self, own[ownIndex]) : (older, carried[carriedIndex])
            if let payload = reader.payload(tag: tag) { writer.write(payload: payload, tag: tag) }
            if takeOwn { ownIndex += 1 } else { carriedIndex += 1 }
        }
        return writer.encoded()
    }
}
