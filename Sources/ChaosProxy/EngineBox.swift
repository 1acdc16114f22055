import FaultEngine
import Synchronization

/// The fault engine one listener's connections share (nth-connection and nth-request count across them, and
/// the upload lengths learned), behind a lock held only for one event.
final class EngineBox: Sendable {
    private let engine: Mutex<FaultEngine>
    private let metrics: ProxyCounters
    /// Told of each rule that met a request it cannot fire in (`ChaosProxyConfiguration.onUnresolvedFault`).
    private let onUnresolved: (@Sendable (UnresolvedFault) -> Void)?

    init(
        rules: [FaultRule], seed: UInt64, metrics: ProxyCounters,
        onUnresolved: (@Sendable (UnresolvedFault) -> Void)? = nil
    ) {
        self.engine = Mutex(FaultEngine(rules: rules, seed: seed))
        self.metrics = metrics
        self.onUnresolved = onUnresolved
    }

    func handle(_ event: FaultEvent) -> FaultOutcome {
        let outcome = engine.withLock { $0.outcome(event) }
        metrics.countFired(outcome.decisions)
        if let onUnresolved { outcome.unresolved.forEach(onUnresolved) }
        return outcome
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

    /// Starts over with new rules and seed (a scenario loaded): counts and draws restart, live connections stay
    /// known (see `FaultEngine.restart`); returns the decisions for them.
    func restart(rules: [FaultRule], seed: UInt64, time: Duration) -> [FaultDecision] {
        let decisions = engine.withLock { $0.restart(with: rules, seed: seed, time: time) }
        metrics.countFired(decisions)
        return decisions
    }

    /// Reads the rules and replaces them in one step under the lock (concurrent API changes cannot interleave);
    /// `change` may throw to change nothing.
    func updateRules<E: Error>(
        time: Duration, _ change: ([FaultRule]) throws(E) -> [FaultRule]
    ) throws(E) -> (rules: [FaultRule], decisions: [FaultDecision]) {
        let result = try engine.withLock { (engine: inout FaultEngine) throws(E) -> ([FaultRule], [FaultDecision]) in
            let rules = try change(engine.rules)
            return (rules, engine.replaceRules(with: rules, time: time))
        }
        metrics.countFired(result.1)
        return result
    }

    var neverFired: [String] { engine.withLock { $0.neverFired } }

    var neverFiredReasons: [String: String] { engine.withLock { $0.neverFiredReasons } }

    var statuses: [FaultRuleStatus] { engine.withLock { $0.statuses } }
}
