import Cairn
import CairnSyncProtocol
import Foundation

extension SyncEngine {
    /// Syncs from now on without being asked: once at start, then after every save to the
    /// store (in this process or another) and whenever the server has new changes (a request
    /// that waits on the server for them, so another replica's save shows here without a
    /// polling interval). While the server cannot be reached, ``status`` is `.offline` and the
    /// engine tries again after 1 s, 2 s, 4 s, … up to a minute. A refusal (an unknown token, a
    /// zone the token does not reach) stops it with `.failed`.
    ///
    /// ```swift
    /// await engine.start()
    /// ```
    public func start() {
        guard loop == nil else { return }
        loop = Task { await self.run() }
    }

    /// Stops syncing automatically; a sync under way ends at its next step.
    ///
    /// ```swift
    /// await engine.stop()
    /// ```
    public func stop() {
        loop?.cancel()
        loop = nil
        if status == .syncing || status == .offline { setStatus(.idle) }
    }

    private func run() async {
        var backoff = Duration.seconds(1)
        while !Task.isCancelled {
            do {
                try await sync()
                backoff = .seconds(1)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.pushAfterEachSave() }
                    group.addTask { try await self.pullWhenAnnounced() }
                    try await group.next()
                    group.cancelAll()
                }
            } catch let error as SyncError where error.code != .offline {
                loop = nil
                return
            } catch {
                if Task.isCancelled { return }
                setStatus(.offline)
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(60))
            }
        }
    }

    /// Pushes after each commit to the store.
    private func pushAfterEachSave() async throws {
        var seen = replica.lastCommit
        let waitForCommit = replica.commitWaiter
        while !Task.isCancelled {
            await waitForCommit(seen)
            seen = replica.lastCommit
            var report = SyncReport()
            do {
                try replica.collect()
                try await push(&report)
            } catch {
                throw failed(error)
            }
            if report.pushed > 0 { setStatus(.idle) }
        }
    }

    /// Pulls whenever the server announces new changes.
    private func pullWhenAnnounced() async throws {
        while !Task.isCancelled {
            var report = SyncReport()
            do {
                try await pull(&report, wait: configuration.waitForChanges)
            } catch {
                throw failed(error)
            }
            setStatus(.idle)
        }
    }

    /// A failure of automatic sync, told through ``status``.
    private func failed(_ error: any Error) -> any Error {
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        let failure = SyncError(error)
        setStatus(failure.code == .offline ? .offline : .failed(failure))
        return failure
    }
}

extension SyncError {
    /// The error a failure of syncing is reported as.
    init(_ error: any Error) {
        switch error {
        case let error as SyncError: self = error
        case let error as SyncProtocolError:
            switch error.code {
            case .unauthorized, .forbidden: self.init(code: .unauthorized, message: error.message)
            case .badRequest, .tooLarge, .positionExpired: self.init(code: .rejected, message: error.message)
            case .unavailable: self.init(code: .offline, message: error.message)
            case .zoneEncrypted: self.init(code: .zoneKeyRequired, message: error.message)
            case .zoneNotEncrypted: self.init(code: .zoneNotEncrypted, message: error.message)
            case .wrongZoneKey: self.init(code: .wrongZoneKey, message: error.message)
            }
        case let error as StorageError:
            self.init(code: .store, message: "The store could not be synced: \(error.message)")
        case let error as FetchError:
            self.init(code: .store, message: "The store could not be synced: \(error.message)")
        case let error as SaveError:
            self.init(code: .store, message: "Changes from other replicas could not be saved: \(error)")
        default:
            self.init(code: .offline, message: "The sync server could not be reached: \(error)")
        }
    }
}
