import Foundation

/// Carries a context into the work that autosaves it, after the current turn of the executor the
/// context belongs to: the burst of changes that scheduled it is over by then, and the save runs
/// where the context is used, never beside it.
///
/// ```swift
/// AutosaveTicket(context: context).schedule(on: .mainActor)
/// ```
///
/// `@unchecked Sendable`: the ticket goes only to the executor that owns the context (the main
/// actor, or a model actor's queue), which alone uses it.
struct AutosaveTicket: @unchecked Sendable {
    /// Where an autosave runs: the executor a context belongs to.
    enum Place {
        /// The main actor (`container.mainContext`, or a context used on the main thread).
        case mainActor
        /// A model actor's serial queue: after the job that made the changes.
        case queue(DispatchQueue)
    }

    let context: ModelContext

    /// Saves the context at `place` once the current turn there is over, if it still autosaves
    /// then.
    func schedule(on place: Place) {
        let ticket = self
        switch place {
        case .mainActor: Task { @MainActor in ticket.run() }
        case .queue(let queue): queue.async { ticket.run() }
        }
    }

    /// The autosave itself. A failed autosave keeps every change, like any failed save; the next
    /// change or an explicit save tries again.
    private func run() {
        context.autosaveScheduled = false
        guard context.autosaveEnabled else { return }
        try? context.save()
    }
}
