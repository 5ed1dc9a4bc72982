import Foundation

/// Carries a context into the work that autosaves it, after the current turn of the executor the
/// context belongs to: the burst of changes that scheduled it is over by then, and the save runs
/// where the context is used, never beside it.
///
/// ```swift
/// AutosaveTicket(context: context).schedule(on: .mainActor)   // an ExecutorPlace
/// ```
///
/// `@unchecked Sendable`: the ticket goes only to the executor that owns the context (the main
/// actor, or a model actor's queue), which alone uses it.
struct AutosaveTicket: @unchecked Sendable {
    let context: ModelContext

    /// Saves the context at `place` once the current turn there is over, if it still autosaves
    /// then.
    func schedule(on place: ExecutorPlace) {
        let ticket = self
        place.schedule { ticket.run() }
    }

    /// The autosave itself. A failed autosave keeps every change, like any failed save; the next
    /// change or an explicit save tries again.
    private func run() {
        context.autosaveScheduled = false
        guard context.autosaveEnabled else { return }
        try? context.save()
    }
}
