/// Notices an N+1 pattern: one relationship loaded model by model, many times in a row, where a
/// fetch could have loaded it for all of them at once (`relationshipKeyPathsForPrefetching`).
///
/// A context's row loader tells it of every relationship it loads for one model alone (a fault of
/// that relationship: the owner read its relationship before anything had loaded it). Loads of the
/// same relationship that follow each other with no pause longer than ``pause`` are one storm;
/// when a storm passes the configured threshold (``ModelConfiguration/faultStormThreshold``), the
/// detector returns the one warning to log, naming the entity, the relationship, the count and the
/// fix. Each relationship is reported once per container (``Reports``): a list that scrolls
/// through the same N+1 again says nothing new.
///
/// Its own type so that the rule can be tested with given clock instants, apart from any context.
struct FaultStormDetector {
    /// A pause this long ends a storm: a loop faults its models back to back, a person tapping
    /// through them does not.
    static let pause: Duration = .milliseconds(250)

    private struct Storm {
        var count: Int
        var first: ContinuousClock.Instant
        var last: ContinuousClock.Instant
    }

    /// More loads than this in one storm are reported.
    let threshold: Int
    /// The relationships reported so far, shared by every context of a container.
    let reports: ReportedNames
    private var storms: [String: Storm] = [:]

    init(threshold: Int, reports: ReportedNames) {
        self.threshold = threshold
        self.reports = reports
    }

    /// Notes that `relationship` of one `owner` model was loaded alone.
    ///
    /// - Returns: The warning to log when this load makes a storm pass the threshold and the
    ///   relationship was not reported before; otherwise `nil`.
    mutating func noteLoad(
        of relationship: String, owner: String, now: ContinuousClock.Instant = .now
    ) -> String? {
        let name = "\(owner).\(relationship)"
        var storm = storms[name] ?? Storm(count: 0, first: now, last: now)
        if now - storm.last > Self.pause { storm = Storm(count: 0, first: now, last: now) }
        storm.count += 1
        storm.last = now
        storms[name] = storm
        guard storm.count == threshold + 1, reports.claim(name) else { return nil }
        let elapsed = now - storm.first
        let milliseconds =
            Int(elapsed.components.seconds) * 1_000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
        return "Fault storm (N+1): \(name) was loaded for one \(owner) at a time, \(storm.count) times in "
            + "\(milliseconds) ms, each load a read of its own. Load it for every \(owner) with the fetch that "
            + "returns them: descriptor.relationshipKeyPathsForPrefetching = [\\\(name)]. (This warning comes once "
            + "per relationship; ModelConfiguration.faultStormThreshold sets when it comes, nil turns it off.)"
    }
}
