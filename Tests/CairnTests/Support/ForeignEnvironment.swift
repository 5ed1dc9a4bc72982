import Cairn
import Foundation

import CLMDB

/// Writes LMDB files the way another program would (plain LMDB, no Cairn tables or commit
/// markers), so tests can check that Cairn refuses them and leaves them unchanged.
enum ForeignEnvironment {
    /// Creates the directory `path` with an LMDB environment of one table, `accounts`, written
    /// by `commits` transactions.
    static func write(at path: String, commits: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        var created: OpaquePointer?
        try check(mdb_env_create(&created))
        guard let environment = created else { return }
        defer { mdb_env_close(environment) }
        try check(mdb_env_set_maxdbs(environment, 4))
        try check(mdb_env_open(environment, path, 0, 0o600))
        for commit in 0..<commits {
            var transaction: OpaquePointer?
            try check(mdb_txn_begin(environment, nil, 0, &transaction))
            var table: MDB_dbi = 0
            try check(mdb_dbi_open(transaction, "accounts", UInt32(MDB_CREATE), &table))
            var keyBytes = Array("account-\(commit)".utf8), valueBytes = Array("balance \(commit * 10)".utf8)
            let rc = keyBytes.withUnsafeMutableBytes { key in
                valueBytes.withUnsafeMutableBytes { value in
                    var k = MDB_val(mv_size: key.count, mv_data: key.baseAddress)
                    var v = MDB_val(mv_size: value.count, mv_data: value.baseAddress)
                    return mdb_put(transaction, table, &k, &v, 0)
                }
            }
            try check(rc)
            try check(mdb_txn_commit(transaction))
        }
    }

    private static func check(_ rc: Int32) throws {
        guard rc == 0 else { throw StorageError(code: .other, message: "LMDB returned \(rc) writing a fixture") }
    }
}
