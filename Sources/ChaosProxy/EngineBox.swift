import FaultEngine
import Synchronization

/// The fault engine one listener's connections share (nth-connection and nth-request count across them),
/// behind a lock held only for one event.
final class EngineBox: Sendable {
    private let engine: Mutex<FaultEngine>
    private let metrics: ProxyCounters

    init(rules: [FaultRule], seed: UInt64, metrics: ProxyCounters) {
        self.engine = Mutex(FaultEngine(rules: rules, seed: seed))
        self.metrics = metrics
    }

    func handle(_ event: FaultEvent) -> [FaultDecision] {
        let decisions = engine.withLock { $0.handle(event) }
        metrics.countFired(decisions)
        return decisions
    }

    func nextDue(on connection: Int) -> Duration? {
        engine.withLock { $0.nextDue(on: connection) }
    }

    var rules: [FaultRule] { engine.withLock { $0.rules } }

    /// Swaps the rules (see `FaultEngine.replaceRules`); returns the decisions for live connections.
    func replaceRules(_ rules: [FaultRule], time: Duration) -> [FaultDecision] {
        let decisions = engine.withLock { $0.replaceRules(with: rules, time: time) }
        metrics.countFired(decisions)
        return decisions
    }

    /// Starts over with new rules and seed (a scenario loaded): counts and draws restart.
    func reset(rules: [FaultRule], seed: UInt64) {
        engine.withLock { $0 = FaultEngine(rules: rules, seed: seed) }
    }

    var neverFired: [String] { engine.withLock { $0.neverFired } }
}
