import Observation

/// Tells a getter whether an observation tracking closure may be running on its thread, so that a
/// model read while nothing tracks needs no observation registrar. One per context
/// (``_ContextLink/probe``); not for direct use.
///
/// Observation offers no way to ask whether `withObservationTracking` (or SwiftUI, or
/// `Observations`) is tracking: a registrar's `access` looks the tracking up in a thread-local
/// that is not public, and does nothing when there is none. What it does when there is one can be
/// seen, though: it puts the key path it was given into the tracking's list of accesses, which
/// retains it. The probe has a key path object of its own that nothing else references, and
/// registers an access to it with its own registrar: if the key path is no longer uniquely
/// referenced afterwards, a tracking holds it.
///
/// It errs toward "tracking", which costs only the registrar the getter would have made anyway:
/// - Once a tracking has read the probe, it keeps its key path until it ends, and the observer
///   it installs when it ends keeps it until that tracking is told of a change (or cancelled).
///   While it is held the probe answers `true` without registering another access, so at most
///   the trackings that found it unheld are ever installed on it.
/// - A key path held for a moment by another thread's tracking answers `true` here too.
///
/// It never answers `false` inside a tracking: whether a tracking retains the key path it is
/// given is checked once per process (``detectsTracking``), and where it does not, the probe is
/// not used and every read makes its registrar, as SwiftData's models make theirs at init.
///
/// Observers installed on the probe belong to trackings that also read a model of its context;
/// the probe's registrar drops them when the link and its context are gone, as a model's
/// registrar drops its observers when the model goes.
///
/// ```swift
/// if link.mayBeTracked() { _ = state.makeObservation() }   // link.probe?.isTracking() ?? true
/// ```
final class ObservationProbe: Observable, @unchecked Sendable {
    /// The property the probe's key path names; never read or changed.
    private struct Room { var unused = 0 }
    private var room = Room()
    /// The probe's registrar: a tracking that reads the probe lists its context.
    private let registrar = ObservationRegistrar()
    /// A key path no one else holds (appended at run time: a key path literal is cached and
    /// shared by the runtime). Read concurrently only to register an access and to test whether
    /// it is uniquely referenced, which never change the variable.
    @exclusivity(unchecked) private var keyPath: KeyPath<ObservationProbe, Int>
    /// The same key path, unretained, to hand the registrar without a retain and release per
    /// access: ``keyPath`` keeps it alive.
    private let lentKeyPath: Unmanaged<KeyPath<ObservationProbe, Int>>

    /// A probe, or `nil` where tracking cannot be detected this way (see ``detectsTracking``).
    static func make() -> ObservationProbe? {
        guard detectsTracking else { return nil }
        return ObservationProbe()
    }

    private init() {
        let keyPath = (\ObservationProbe.room).appending(path: \Room.unused)
        self.keyPath = keyPath
        lentKeyPath = .passUnretained(keyPath)
    }

    /// Whether an observation tracking closure may be running on this thread: `false` only when
    /// none is.
    func isTracking() -> Bool {
        if !isKnownUniquelyReferenced(&keyPath) { return true }
        lentKeyPath._withUnsafeGuaranteedRef { registrar.access(self, keyPath: $0) }
        return !isKnownUniquelyReferenced(&keyPath)
    }

    /// Whether an access registered inside a tracking closure retains the key path, and a probe's
    /// key path is its own: checked once, with a probe used for nothing else. The tracking it
    /// makes for the check is ended by a change, so nothing stays installed.
    static let detectsTracking: Bool = {
        let probe = ObservationProbe()
        guard isKnownUniquelyReferenced(&probe.keyPath) else { return false }
        var seen = false
        withObservationTracking {
            seen = probe.isTracking()
        } onChange: {
        }
        probe.registrar.withMutation(of: probe, keyPath: probe.keyPath) {}
        return seen
    }()
}
