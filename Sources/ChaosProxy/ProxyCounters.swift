import ControlAPI
import FaultEngine
import Synchronization

/// The proxy's metrics, updated from connection threads without blocking them for long.
final class ProxyCounters: Sendable {
    let bytesUpstream = Atomic<Int64>(0)
    let bytesDownstream = Atomic<Int64>(0)
    let accepted = Atomic<Int64>(0)
    let open = Atomic<Int64>(0)
    private let fired = Mutex<[String: Int64]>([:])

    func countFired(_ decisions: [FaultDecision]) {
        guard !decisions.isEmpty else { return }
        fired.withLock { counts in
            for decision in decisions { counts[decision.rule, default: 0] += 1 }
        }
    }

    var snapshot: ProxyMetrics {
        var metrics = ProxyMetrics()
        metrics.bytesUpstream = bytesUpstream.load(ordering: .relaxed)
        metrics.bytesDownstream = bytesDownstream.load(ordering: .relaxed)
        metrics.connectionsAccepted = accepted.load(ordering: .relaxed)
        metrics.connectionsOpen = open.load(ordering: .relaxed)
        metrics.faultsFired = fired.withLock { $0 }
        return metrics
    }
}
