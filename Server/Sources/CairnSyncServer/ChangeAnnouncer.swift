import Foundation
import Logging
import PostgresNIO

/// Wakes the requests waiting for a zone's next batch when any server process stores one: it
/// listens on PostgreSQL's `cairn_changes` channel (the push's `pg_notify`), so a replica's save
/// reaches the others' waiting requests whichever process each is connected to.
///
/// ```swift
/// let ticket = await announcer.register("alice/default")
/// if nothingNewYet { await announcer.wait(ticket, upTo: .seconds(25)) } else { await announcer.cancel(ticket) }
/// ```
public actor ChangeAnnouncer {
    private struct Waiter {
        let key: String
        var continuation: CheckedContinuation<Void, Never>?
        var signaled = false
    }

    private var waiters: [UUID: Waiter] = [:]

    /// An announcer with no one waiting; ``run(client:logger:)`` starts its listening.
    ///
    /// ```swift
    /// let announcer = ChangeAnnouncer()
    /// ```
    public init() {}

    /// Listens until cancelled, connecting again after a lost connection.
    public func run(client: PostgresClient, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: "cairn_changes") { notifications in
                        for try await notification in notifications { self.announce(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("Listening for changes failed (\(String(reflecting: error))); listening again in a second")
                // Waiting requests look again: a change may have been missed meanwhile.
                for key in Set(waiters.values.map(\.key)) { announce(key) }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// A ticket to wait for the next batch of zone `key` (`owner/zone`), registered before the
    /// caller looks again, so a batch stored in between is not missed.
    public func register(_ key: String) -> UUID {
        let ticket = UUID()
        waiters[ticket] = Waiter(key: key)
        return ticket
    }

    /// Returns when a batch of the ticket's zone is stored, or after `wait`.
    public func wait(_ ticket: UUID, upTo wait: Duration) async {
        guard let waiter = waiters[ticket], !waiter.signaled else {
            waiters[ticket] = nil
            return
        }
        // A request cancelled (the server stopping, the client gone) stops waiting at once.
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters[ticket]?.continuation = continuation
                Task {
                    try? await Task.sleep(for: wait)
                    self.resume(ticket)
                }
            }
        } onCancel: {
            Task { await self.resume(ticket) }
        }
    }

    /// Forgets a ticket not waited on.
    public func cancel(_ ticket: UUID) { waiters[ticket] = nil }

    /// Wakes the waiters of zone `key`.
    public func announce(_ key: String) {
        for (ticket, waiter) in waiters where waiter.key == key {
            if waiter.continuation != nil { resume(ticket) } else { waiters[ticket]?.signaled = true }
        }
    }

    private func resume(_ ticket: UUID) {
        guard let continuation = waiters[ticket]?.continuation else { return }
        waiters[ticket] = nil
        continuation.resume()
    }
}
