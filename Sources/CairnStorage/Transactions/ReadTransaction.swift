/// A read-only snapshot of the store, valid inside one ``LMDBEnvironment/read(_:)`` closure.
///
/// It sees the store as of its start, whatever commits happen meanwhile. Keep it short: an open
/// snapshot keeps the pages it sees from being reused, so a long one makes the file grow.
///
/// ```swift
/// let title = try environment.read { txn in try txn.get(key, in: books) }
/// ```
package struct ReadTransaction: StorageTransaction, ~Copyable {
    /// The transaction's LMDB state.
    ///
    /// ```swift
    /// try environment.read { txn in _ = txn.handle }
    /// ```
    package let handle: TransactionHandle

    init(handle: TransactionHandle) { self.handle = handle }
}
