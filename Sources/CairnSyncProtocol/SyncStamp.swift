/// When a field was written, and by which replica: a hybrid logical clock reading and the
/// replica's identifier. Stamps order every write the same way on every replica — by clock,
/// then by replica — so the last writer of a field is the same everywhere.
///
/// The clock (``HybridLogicalClock``) holds milliseconds since 1970 in its high 48 bits and a
/// counter in its low 16: it follows the wall clock, and never runs backwards or behind a stamp
/// the replica has seen (Kulkarni et al., "Logical Physical Clocks", 2014).
///
/// ```swift
/// let earlier = SyncStamp(clock: 1 << 16, replica: a)
/// let later = SyncStamp(clock: 2 << 16, replica: b)
/// earlier < later   // true
/// ```
public struct SyncStamp: Hashable, Comparable, Sendable, Codable {
    /// The hybrid logical clock's reading.
    public var clock: UInt64
    /// The replica that wrote.
    public var replica: SyncID

    /// A stamp.
    ///
    /// ```swift
    /// let stamp = SyncStamp(clock: clock.tick(wallMilliseconds: now), replica: replicaID)
    /// ```
    public init(clock: UInt64, replica: SyncID) {
        self.clock = clock
        self.replica = replica
    }

    /// The milliseconds since 1970 the clock reading holds.
    ///
    /// ```swift
    /// SyncStamp(clock: 5 << 16 | 3, replica: a).milliseconds   // 5
    /// ```
    public var milliseconds: UInt64 { clock >> 16 }

    public static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool { (lhs.clock, lhs.replica) < (rhs.clock, rhs.replica) }

    private enum CodingKeys: String, CodingKey {
        case clock = "c"
        case replica = "r"
    }
}

/// A hybrid logical clock: readings that follow the wall clock, increase with every reading, and
/// move past every reading received from elsewhere, so a write made after seeing another's is
/// stamped after it even when this machine's clock is behind.
///
/// ```swift
/// var clock = HybridLogicalClock()
/// let first = clock.tick(wallMilliseconds: 1000)
/// clock.observe(remoteStamp.clock)
/// let second = clock.tick(wallMilliseconds: 999)   // > first and > remoteStamp.clock
/// ```
public struct HybridLogicalClock: Hashable, Sendable {
    /// The last reading given or observed.
    public private(set) var last: UInt64

    /// A clock whose last reading is `last` (0 for a new one).
    ///
    /// ```swift
    /// var clock = HybridLogicalClock(last: storedReading)
    /// ```
    public init(last: UInt64 = 0) { self.last = last }

    /// A new reading at `wallMilliseconds`: the wall clock's if it is ahead, else one past the last.
    ///
    /// ```swift
    /// let reading = clock.tick(wallMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000))
    /// ```
    public mutating func tick(wallMilliseconds: UInt64) -> UInt64 {
        let physical = (wallMilliseconds & 0xFFFF_FFFF_FFFF) << 16
        last = physical > last ? physical : last &+ 1
        return last
    }

    /// Moves the clock past a reading received from elsewhere.
    ///
    /// ```swift
    /// clock.observe(change.stamp.clock)
    /// ```
    public mutating func observe(_ reading: UInt64) {
        if reading > last { last = reading }
    }
}
