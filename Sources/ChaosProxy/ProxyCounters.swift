import ControlAPI
import FaultEngine
import Synchronization

/// The proxy's metrics, updated from connection threads without blocking them for long. Bytes are counted once,
/// by each connection's handle; the totals are the closed connections' (added here as each one ends) plus the
/// live ones'.
final class ProxyCounters: Sendable {
    private let closedUpstream = Atomic<Int64>(0)
    private let closedDownstream = Atomic<Int64>(0)
    let accepted = Atomic<Int64>(0)
    let open = Atomic<Int64>(0)
    /// Connections the listeners stopped so far shed (over their limit); the running ones count their own.
    let shedByStoppedListeners = Atomic<Int64>(0)
    private let fired = Mutex<[String: Int64]>([:])

    func countFired(_ decisions: [FaultDecision]) {
        guard !decisions.isEmpty else { return }
        fired.withLock { counts in
            for decision in decisions { counts[decision.rule, default: 0] += 1 }
        }
    }

    /// Adds a connection's bytes to the totals as it leaves the live list.
    func closed(_ handle: ConnectionHandle) {
        closedUpstream.add(handle.bytesUpstream.load(ordering: .relaxed), ordering: .relaxed)
        closedDownstream.add(handle.bytesDownstream.load(ordering: .relaxed), ordering: .relaxed)
    }

    /// The metrics, with the bytes of `live` connections (the registry's, taken after the closed totals were read,
    /// so that a connection closing meanwhile is counted at most once).
    func snapshot(live: () -> [ConnectionHandle]) -> ProxyMetrics {
        var metrics = ProxyMetrics()
        metrics.bytesUpstream = closedUpstream.load(ordering: .relaxed)
        metrics.bytesDownstream = closedDownstream.load(ordering: .relaxed)
        for handle in live() {
            metrics.bytesUpstream += handle.bytesUpstream.load(ordering: .relaxed)
            metrics.bytesDownstream += handle.bytesDownstream.load(ordering: .relaxed)
        }
        metrics.connectionsAccepted = accepted.load(ordering: .relaxed)
        metrics.connectionsOpen = open.load(ordering: .relaxed)
        metrics.connectionsShed = shedByStoppedListeners.load(ordering: .relaxed)
        metrics.faultsFired = fired.withLock { $0 }
        return metrics
    }
}
