import FaultEngine
import Synchronization

/// The fault budget one listener's connections share (rules, `times`, seeded draws, nth-request counts, the
/// upload lengths and tokens learned), behind a lock a connection takes only when its faults ask (see
/// `ConnectionFaults`); each connection keeps its own arms.
final class EngineBox: FaultBudgetAccess, Sendable {
    private let budget: Mutex<FaultBudget>
    /// The budget's rule version, read without the lock.
    private let currentVersion = Atomic(0)
    private let metrics: ProxyCounters
    /// Told of each rule that met a request it cannot fire in (`ChaosProxyConfiguration.onUnresolvedFault`).
    private let onUnresolved: (@Sendable (UnresolvedFault) -> Void)?

    init(
        rules: [FaultRule], seed: UInt64, metrics: ProxyCounters,
        onUnresolved: (@Sendable (UnresolvedFault) -> Void)? = nil
    ) {
        self.budget = Mutex(FaultBudget(rules: rules, seed: seed))
        self.metrics = metrics
        self.onUnresolved = onUnresolved
    }

    func withBudget<R: Sendable>(_ body: (inout FaultBudget) -> R) -> R {
        budget.withLock { body(&$0) }
    }

    var version: Int { currentVersion.load(ordering: .acquiring) }

    func report(_ outcome: FaultOutcome) {
        metrics.countFired(outcome.decisions)
        if let onUnresolved { outcome.unresolved.forEach(onUnresolved) }
    }

    var rules: [FaultRule] { budget.withLock { $0.rules } }

    /// Swaps the rules (see `FaultBudget.replaceRules`); returns the change for the live connections.
    func replaceRules(_ rules: [FaultRule], time: Duration) -> FaultRuleChange {
        budget.withLock { budget in
            let change = budget.replaceRules(with: rules, time: time)
            currentVersion.store(change.set.version, ordering: .releasing)
            return change
        }
    }

    /// Starts over with new rules and seed (a scenario loaded; see `FaultBudget.restart`); returns the change for
    /// the live connections.
    func restart(rules: [FaultRule], seed: UInt64, time: Duration) -> FaultRuleChange {
        budget.withLock { budget in
            let change = budget.restart(with: rules, seed: seed, time: time)
            currentVersion.store(change.set.version, ordering: .releasing)
            return change
        }
    }

    /// Reads the rules and replaces them in one step under the lock (concurrent API changes cannot interleave);
    /// `change` may throw to change nothing.
    func updateRules<E: Error>(
        time: Duration, _ change: ([FaultRule]) throws(E) -> [FaultRule]
    ) throws(E) -> FaultRuleChange {
        try budget.withLock { (budget: inout FaultBudget) throws(E) -> FaultRuleChange in
            let change = budget.replaceRules(with: try change(budget.rules), time: time)
            currentVersion.store(change.set.version, ordering: .releasing)
            return change
        }
    }

    var neverFired: [String] { budget.withLock { $0.neverFired } }

    var neverFiredReasons: [String: String] { budget.withLock { $0.neverFiredReasons } }

    var statuses: [FaultRuleStatus] { budget.withLock { $0.statuses } }
}
