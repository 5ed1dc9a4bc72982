extension DataFileValidator {
    /// Gives a compacted copy the transaction id of the commit it copied.
    ///
    /// LMDB's compacting copy (`mdb_env_copyfd2` with `MDB_CP_COMPACT`) writes the copied snapshot
    /// under transaction id 1 (meta page 1) beside an empty page 0 with id 0, so the copy's next
    /// commit would be 2. Cairn keys its history by commit id (`h`, history tokens, the commit
    /// counters contexts compare): a store restored from such a copy would write its next saves
    /// under the ids of old ones, overwriting their history entries and sorting new changes before
    /// old ones. The copied snapshot holds its own id (the commit marker), so both meta pages are
    /// rewritten to name the copied trees: the marker's id in its slot, the id before it in the
    /// other, as LMDB itself leaves two consecutive commits. A file without a marker (not written
    /// by Cairn) is left as LMDB wrote it.
    ///
    /// Called on the copy before it is flushed and moved into place; nothing else has it open.
    ///
    /// - Throws: ``StorageError`` when the copy cannot be read or written.
    func continueCommitIDs() throws(StorageError) {
        let file = try MappedDataFile(path: path)
        let (pageSize, metas) = try readMetaPages(file)
        guard let copied = metas.max(by: { $0.transactionID < $1.transactionID }), copied.transactionID <= 1,
            copied.problem(pageSize: pageSize) == nil
        else { return }
        var walker = PageWalker(file: file, pageSize: pageSize, lastPage: copied.lastPage)
        guard let marker = try? walker.marker(of: copied), marker > 1 else { return }
        let slot = Int(marker % 2)
        // The page that will hold the newest id first: at every moment LMDB would choose the copied trees.
        try write(copied.canonicalBytes(slot: slot, transactionID: marker), at: slot * pageSize)
        try write(copied.canonicalBytes(slot: 1 - slot, transactionID: marker - 1), at: (1 - slot) * pageSize)
    }
}
