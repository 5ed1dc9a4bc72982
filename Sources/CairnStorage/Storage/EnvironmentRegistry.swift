import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide list of open environments: one per store directory.
///
/// LMDB must not have the same files open twice in one process: its lock file relies on POSIX
/// record locks, which belong to the process, so a second open believes it is alone and resets
/// the reader table, and closing either handle drops the locks of both. The registry hands out
/// the environment already open for a directory, and closes an environment's files (under its
/// lock) before the directory can be opened again.
final class EnvironmentRegistry: @unchecked Sendable {
    static let shared = EnvironmentRegistry()

    private final class Entry {
        weak var environment: LMDBEnvironment?
        let state: EnvironmentState
        init(environment: LMDBEnvironment) {
            self.environment = environment
            self.state = environment.state
        }
    }

    /// Guards `entries` and every state's `isClosed`.
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// The environment open for the directory with identity `key`, or a new one from `open`.
    func environment(
        for key: String, configuration: StorageConfiguration,
        open: () throws(StorageError) -> LMDBEnvironment
    ) throws(StorageError) -> LMDBEnvironment {
        let (environment, existed) = try lookUpOrOpen(key, open: open)
        // Checked outside the lock: if this is the last reference, releasing it runs deinit,
        // which takes the lock.
        if existed && environment.configuration.isReadOnly && !configuration.isReadOnly {
            throw StorageError(
                code: .readOnly,
                message: "This store is already open read-only in this process. Release that "
                    + "instance before opening it for writing.",
                path: environment.path)
        }
        // The environment already open serves only the secret that opens its store.
        if existed {
            do {
                try environment.checkSecret(configuration.encryption)
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError(code: .other, message: "Checking the store's key failed: \(error)", cause: error)
            }
        }
        return environment
    }

    private func lookUpOrOpen(
        _ key: String, open: () throws(StorageError) -> LMDBEnvironment
    ) throws(StorageError) -> (LMDBEnvironment, existed: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key] {
            if entry.state.processID != ProcessIdentity.current {
                // Inherited across fork(): the child must not touch it (see EnvironmentState.close()).
                entries[key] = nil
            } else if let environment = entry.environment {
                return (environment, true)
            } else {
                // Its last reference is going away and its deinit waits for this lock: close the
                // files now so the new open does not overlap them.
                entry.state.close()
                entries[key] = nil
            }
        }
        let environment = try open()
        entries[key] = Entry(environment: environment)
        return (environment, false)
    }

    /// Closes `state` unless a newer open already did.
    /// Runs `body` while no environment of this process has the store `key` open, holding the
    /// registry's lock so that none can be opened meanwhile: for replacing the store's data file
    /// (``StoreCompaction``). `body` must not open an environment.
    ///
    /// - Throws: ``StorageError`` `.inUse` when an environment of this process has the store open.
    func withStoreClosed<R>(_ key: String, path: String, _ body: () throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key] {
            guard entry.environment == nil, entry.state.processID == ProcessIdentity.current else {
                throw StorageError(
                    code: .inUse,
                    message: "This process has the store open (a ModelContainer or environment that is still alive). "
                        + "Release it before compacting the store.",
                    path: path)
            }
            // Its last reference is going away: close its files now.
            entry.state.close()
            entries[key] = nil
        }
        return try body()
    }

    func release(_ state: EnvironmentState) {
        lock.lock()
        defer { lock.unlock() }
        if !state.isClosed { state.close() }
        if let entry = entries[state.registryKey], entry.state === state {
            entries[state.registryKey] = nil
        }
    }
}
