import Testing

@testable import Cairn
@testable import CairnStorage

#if canImport(Glibc)
import Glibc
#endif

/// The funnel turns every C code into the right public code, with a message that says what to do.
@Suite struct StorageErrorTests {
    @Test(arguments: [
        (LMDBError.mapFull, StorageError.Code.maximumSizeReached, "maximum size"),
        (LMDBError.transactionFull, .transactionTooLarge, "smaller chunks"),
        (LMDBError.readersFull, .tooManyReaders, "readers"),
        (LMDBError.tablesFull, .tooManyTables, "tables"),
        (LMDBError.versionMismatch, .versionMismatch, "release"),
        (LMDBError.corrupted, .damaged, "backup"),
        (LMDBError.invalid, .damaged, "backup"),
        (LMDBError.badValueSize, .invalidSize, "Shorten"),
        (LMDBError(ENOSPC), .diskFull, "Free some space"),
        (LMDBError(EFBIG), .diskFull, "Free some space"),
        (LMDBError(EIO), .ioError, "Check the disk"),
        (LMDBError(EACCES), .permissionDenied, "readable and writable"),
        (LMDBError(EROFS), .readOnly, "read-only"),
        (LMDBError.panic, .ioError, "Retry"),
    ])
    func codesMapToPublicErrorsWithRemedies(lmdb: LMDBError, code: StorageError.Code, remedy: String) {
        let error = lmdb.storageError(operation: "Committing a write", path: "/tmp/x")
        #expect(error.code == code)
        #expect(error.message.hasPrefix("Committing a write failed: "))
        #expect(error.message.contains(remedy), "\(error.message)")
        #expect((error.cause as? LMDBError) == lmdb)
        #expect(error.description.contains("/tmp/x"))
    }

    @Test func notFoundIsAbsenceNotAnError() throws {
        #expect(try lmdbCheck(0, "mdb_get"))
        #expect(try !lmdbCheck(LMDBError.notFound.rawValue, "mdb_get"))
        #expect(throws: LMDBError.mapFull) { try lmdbCheck(LMDBError.mapFull.rawValue, "mdb_put") }
    }

    @Test func aPoisoningErrorIsReportedAgainInsteadOfBadTransaction() {
        #expect(LMDBError.mapFull.poisonsTransaction)
        #expect(!LMDBError.keyExists.poisonsTransaction)
        #expect(!LMDBError.notFound.poisonsTransaction)
    }

    @Test func codesCanBeCaughtByPattern() {
        do {
            throw StorageError(code: .diskFull, message: "full")
        } catch StorageError.Code.diskFull {
            // matched
        } catch {
            Issue.record("the ~= pattern did not match: \(error)")
        }
    }
}
