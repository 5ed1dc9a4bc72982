/// An error from the storage layer: opening, reading, writing or copying a store's files.
///
/// A `StorageError` says what failed and how to fix it. Its ``code`` is an evolvable set of
/// values, so adding a code in a later release never breaks a `switch` in your code; match the
/// codes you handle and keep a `default`.
///
/// ```swift
/// do {
///     try context.save()
/// } catch StorageError.Code.diskFull {
///     showAlert("Free some disk space, then save again. Your changes are still here.")
/// } catch let error as StorageError {
///     print(error.message)   // says what failed and what to do about it
/// }
/// ```
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// ```swift
    /// if error.code == .damaged { try restoreFromBackup() }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// The code's name, such as `diskFull`.
        ///
        /// ```swift
        /// print(StorageError.Code.diskFull)   // "diskFull"
        /// ```
        public var description: String { name }

        /// A store was opened at a location that holds none.
        ///
        /// ```swift
        /// catch StorageError.Code.notFound { /* create the store instead */ }
        /// ```
        public static let notFound = Code("notFound")
        /// A store was to be created where one already exists.
        ///
        /// ```swift
        /// catch StorageError.Code.alreadyExists { /* open it instead */ }
        /// ```
        public static let alreadyExists = Code("alreadyExists")
        /// The store's files are damaged, truncated or not a store at all. Nothing was opened.
        ///
        /// ```swift
        /// catch StorageError.Code.damaged { try restoreFromBackup() }
        /// ```
        public static let damaged = Code("damaged")
        /// A stored record failed its checksum or could not be decoded; it was not used.
        ///
        /// ```swift
        /// catch StorageError.Code.damagedRecord { /* the rest of the store is still readable */ }
        /// ```
        public static let damagedRecord = Code("damagedRecord")
        /// The files were written by an incompatible version of the storage format.
        ///
        /// ```swift
        /// catch StorageError.Code.versionMismatch { /* open it with the release that wrote it */ }
        /// ```
        public static let versionMismatch = Code("versionMismatch")
        /// The store reached its configured maximum size.
        ///
        /// ```swift
        /// catch StorageError.Code.maximumSizeReached { /* raise the maximum size or delete data */ }
        /// ```
        public static let maximumSizeReached = Code("maximumSizeReached")
        /// One write touched more pages than a single transaction can hold.
        ///
        /// ```swift
        /// catch StorageError.Code.transactionTooLarge { /* save in smaller chunks */ }
        /// ```
        public static let transactionTooLarge = Code("transactionTooLarge")
        /// Every reader slot of the store is in use by live threads or processes.
        ///
        /// ```swift
        /// catch StorageError.Code.tooManyReaders { /* raise the maximum reader count */ }
        /// ```
        public static let tooManyReaders = Code("tooManyReaders")
        /// The store needs more named tables than it was configured for.
        ///
        /// ```swift
        /// catch StorageError.Code.tooManyTables { /* raise the maximum table count */ }
        /// ```
        public static let tooManyTables = Code("tooManyTables")
        /// The disk (or a file-size limit) is full. Earlier commits are intact.
        ///
        /// ```swift
        /// catch StorageError.Code.diskFull { /* free space, then retry */ }
        /// ```
        public static let diskFull = Code("diskFull")
        /// The operating system reported an input/output error. Earlier commits are intact.
        ///
        /// ```swift
        /// catch StorageError.Code.ioError { /* check the disk, then retry */ }
        /// ```
        public static let ioError = Code("ioError")
        /// A write was committed, and every context sees it, but flushing it to the drive failed
        /// (``ModelConfiguration``'s `durability` `.powerLossSafe`): it may not survive a crash
        /// or a loss of power. The context that saved holds no changes any more; saving again
        /// does not write them twice. The disk may be failing: back the store up elsewhere.
        ///
        /// ```swift
        /// catch StorageError.Code.notFlushed { /* back up the store, check the disk */ }
        /// ```
        public static let notFlushed = Code("notFlushed")
        /// The process may not read or write the store's files.
        ///
        /// ```swift
        /// catch StorageError.Code.permissionDenied { /* fix the files' owner or mode */ }
        /// ```
        public static let permissionDenied = Code("permissionDenied")
        /// A write was attempted on a store opened read-only.
        ///
        /// ```swift
        /// catch StorageError.Code.readOnly { /* open the store for writing */ }
        /// ```
        public static let readOnly = Code("readOnly")
        /// A store opened before `fork()` was used in the child process.
        ///
        /// ```swift
        /// catch StorageError.Code.usedAfterFork { /* open the store again in the child */ }
        /// ```
        public static let usedAfterFork = Code("usedAfterFork")
        /// A key or value is empty or larger than the storage engine accepts.
        ///
        /// ```swift
        /// catch StorageError.Code.invalidSize { /* shorten the value */ }
        /// ```
        public static let invalidSize = Code("invalidSize")
        /// A value cannot be stored, or a stored value cannot be read back as the requested type.
        ///
        /// ```swift
        /// catch StorageError.Code.unsupportedValue { /* change the property's type */ }
        /// ```
        public static let unsupportedValue = Code("unsupportedValue")
        /// The configuration asks for something Cairn does not offer, such as CloudKit sync.
        ///
        /// ```swift
        /// catch StorageError.Code.unsupported { /* use cloudKitDatabase: .none */ }
        /// ```
        public static let unsupported = Code("unsupported")
        /// Another process has the store open, and the operation needs it alone (compacting in place).
        ///
        /// ```swift
        /// catch StorageError.Code.inUse { /* close the app, or back the store up to a new path */ }
        /// ```
        public static let inUse = Code("inUse")
        /// The path holds files that are not a Cairn store: another program's LMDB environment, or
        /// a file that is no store at all. Nothing was written to them.
        ///
        /// ```swift
        /// catch StorageError.Code.notAStore { /* choose another path for the store */ }
        /// ```
        public static let notAStore = Code("notAStore")
        /// A store's file is a symbolic link, a FIFO, a socket or a device instead of a regular
        /// file, or the store's directory belongs to another user or lets other users write in it.
        /// Cairn neither follows nor opens it (see `Docs/Security.md`).
        ///
        /// ```swift
        /// catch StorageError.Code.unsafeFile { /* remove the planted entry while no process uses the store */ }
        /// ```
        public static let unsafeFile = Code("unsafeFile")
        /// A directory is where a store's file should be (or a file where its directory should be).
        ///
        /// ```swift
        /// catch StorageError.Code.isDirectory { /* remove the directory, or point at the store's directory */ }
        /// ```
        public static let isDirectory = Code("isDirectory")
        /// The store is encrypted and was opened without its key or passphrase. Nothing was read.
        ///
        /// ```swift
        /// catch StorageError.Code.encryptionKeyRequired { /* ask for the passphrase, open again */ }
        /// ```
        public static let encryptionKeyRequired = Code("encryptionKeyRequired")
        /// The key or passphrase given does not open this encrypted store. Nothing was read or written.
        ///
        /// ```swift
        /// catch StorageError.Code.wrongEncryptionKey { /* ask for the passphrase again */ }
        /// ```
        public static let wrongEncryptionKey = Code("wrongEncryptionKey")
        /// A key or passphrase was given for a store that is not encrypted. Nothing was written;
        /// encrypt the store first (`ModelContainer.encryptStore`), or open it without one.
        ///
        /// ```swift
        /// catch StorageError.Code.notEncrypted { /* encrypt it, then open it with the key */ }
        /// ```
        public static let notEncrypted = Code("notEncrypted")
        /// A failure that fits no other code; ``StorageError/cause`` holds the details.
        ///
        /// ```swift
        /// catch StorageError.Code.other { /* report error.message */ }
        /// ```
        public static let other = Code("other")
    }

    /// What kind of failure this is.
    ///
    /// ```swift
    /// switch error.code {
    /// case .diskFull: freeSpace()
    /// default: report(error)
    /// }
    /// ```
    public var code: Code

    /// What failed and how to fix it, in a sentence or two.
    ///
    /// ```swift
    /// logger.error("\(error.message)")
    /// ```
    public var message: String

    /// The file or directory concerned, when there is one.
    ///
    /// ```swift
    /// if let path = error.path { print("in \(path)") }
    /// ```
    public var path: String?

    /// The lower-level error that caused this one, if any.
    ///
    /// ```swift
    /// if let cause = error.cause { print("caused by \(cause)") }
    /// ```
    public var cause: (any Error & Sendable)?

    /// Creates a storage error.
    ///
    /// ```swift
    /// throw StorageError(code: .damaged, message: "The file is truncated. Restore it from a backup.")
    /// ```
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What failed and how to fix it.
    ///   - path: The file or directory concerned.
    ///   - cause: The lower-level error, if any.
    public init(code: Code, message: String, path: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    /// The code, the message, the path and the cause, on one line.
    ///
    /// ```swift
    /// print(error)   // "StorageError.diskFull: The disk is full … (path: …)"
    /// ```
    public var description: String {
        var text = "StorageError.\(code): \(message)"
        if let path { text += " (path: \(path))" }
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}

extension StorageError.Code {
    /// Matches a thrown error against a code, so that `catch StorageError.Code.diskFull` works.
    ///
    /// ```swift
    /// do { try context.save() } catch StorageError.Code.diskFull { freeSpace() }
    /// ```
    ///
    /// - Parameters:
    ///   - code: The code to match.
    ///   - error: The thrown error.
    /// - Returns: `true` when `error` is a ``StorageError`` with this code.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? StorageError)?.code == code
    }
}
