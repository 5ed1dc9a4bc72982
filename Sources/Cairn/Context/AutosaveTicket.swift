import Foundation

/// Carries the main context into the main-actor task that autosaves it, after the burst of
/// changes that scheduled it.
///
/// ```swift
/// AutosaveTicket(context: container.mainContext).schedule()
/// ```
///
/// `@unchecked Sendable`: only a container's `mainContext` autosaves, and it is used on the main
/// actor alone; the task that receives it runs there too.
struct AutosaveTicket: @unchecked Sendable {
    let context: ModelContext

    /// Saves the context on the main actor once the current burst of changes is over, if it
    /// still autosaves then.
    func schedule() {
        let ticket = self
        Task { @MainActor in
            ticket.context.autosaveScheduled = false
            // A failed autosave keeps every change, like any failed save; the next change or an
            // explicit save tries again.
            guard ticket.context.autosaveEnabled else { return }
            try? ticket.context.save()
        }
    }
}
