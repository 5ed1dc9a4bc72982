import CairnSyncProtocol
import Foundation

/// A transport to an ``InMemorySyncServer`` in the same process. It can lose, repeat, delay and
/// reorder messages on purpose (``Faults``), as a network does, for tests of what the engine
/// does then; the faults follow a seed, so a failing case replays.
///
/// ```swift
/// let transport = InProcessSyncTransport(server: server, token: "alice-token")
/// ```
public struct InProcessSyncTransport: SyncTransport {
    /// What the transport does wrong, on purpose.
    public struct Faults: Sendable {
        /// The share of calls that fail before reaching the server.
        public var dropRequests = 0.0
        /// The share of calls that reach the server and lose the answer.
        public var dropAnswers = 0.0
        /// The share of pushes delivered twice.
        public var duplicatePushes = 0.0
        /// The share of pushes held back: the caller is told the push failed, and the server
        /// gets it later, after the transport's next call (so after newer messages).
        public var reorderPushes = 0.0
        /// The longest delay added to a call.
        public var maximumDelay: Duration = .zero
        /// The seed of the faults' choices.
        public var seed: UInt64 = UInt64.random(in: 0...UInt64.max)

        /// No faults.
        ///
        /// ```swift
        /// var faults = InProcessSyncTransport.Faults()
        /// faults.dropAnswers = 0.2
        /// faults.seed = 42
        /// ```
        public init() {}
    }

    let server: InMemorySyncServer
    let token: String?
    let faults: Faults
    private let network: Network

    /// A transport to `server`, sending `token`.
    public init(server: InMemorySyncServer, token: String? = nil, faults: Faults = Faults()) {
        self.server = server
        self.token = token
        self.faults = faults
        network = Network(seed: faults.seed)
    }

    /// Thrown for a call the faults dropped.
    public struct Dropped: Error {}

    private func deliver<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        if faults.maximumDelay > .zero { try await Task.sleep(for: faults.maximumDelay * (await network.roll())) }
        if await network.roll() < faults.dropRequests { throw Dropped() }
        let answer = try await call()
        for (batch, zone) in await network.takeHeld() { _ = try? await server.push(batch, zone: zone) }
        if await network.roll() < faults.dropAnswers { throw Dropped() }
        return answer
    }

    public func push(_ batch: ChangeBatch, zone: String) async throws -> PushResult {
        try await deliver {
            try await server.authorize(token, zone: zone)
            if await network.roll() < faults.reorderPushes {
                await network.hold(batch, zone: zone)
                throw Dropped()
            }
            if await network.roll() < faults.duplicatePushes { _ = try await server.push(batch, zone: zone) }
            return try await server.push(batch, zone: zone)
        }
    }

    public func changes(zone: String, after: Int64, limit: Int, wait: Duration?) async throws -> ChangesPage {
        try await deliver {
            try await server.authorize(token, zone: zone)
            return try await server.changes(zone: zone, after: after, limit: limit, wait: wait)
        }
    }

    public func snapshot(zone: String, after: SyncID?, limit: Int) async throws -> SnapshotPage {
        try await deliver {
            try await server.authorize(token, zone: zone)
            return await server.snapshot(zone: zone, after: after, limit: limit)
        }
    }

    /// The transport's seeded choices and the pushes it holds back.
    private actor Network {
        private var bits: SplitMix64
        private var held: [(ChangeBatch, String)] = []

        init(seed: UInt64) { bits = SplitMix64(seed: seed) }

        /// A number in 0..<1.
        func roll() -> Double { Double(bits.next() >> 11) / Double(1 << 53) }

        func hold(_ batch: ChangeBatch, zone: String) { held.append((batch, zone)) }

        func takeHeld() -> [(ChangeBatch, String)] {
            defer { held = [] }
            return held
        }
    }
}
