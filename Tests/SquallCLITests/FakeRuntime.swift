import ControlAPI
import FaultEngine
import Synchronization

/// A `ProxyRuntime` without sockets for the `squall fault` tests: keeps rules in memory and records firings (a
/// leaner copy of ControlAPITests' fake; listeners are not exercised here).
final class FakeRuntime: ProxyRuntime {
    /// One `fire` call.
    struct Fired: Hashable {
        var action: FaultAction
        var direction: FaultDirection
        var connection: Int
        var name: String
    }

    struct State {
        var rules: [FaultRule] = []
        var seed: UInt64?
        var connections: [LiveConnection] = []
        var fired: [Fired] = []
        var transcript: [String] = []
        var metrics = ProxyMetrics()
    }

    let state = Mutex(State())

    init(connections: [LiveConnection] = [], transcript: [String] = []) {
        state.withLock {
            $0.connections = connections
            $0.transcript = transcript
        }
    }

    var rules: [FaultRule] { state.withLock { $0.rules } }
    var fired: [Fired] { state.withLock { $0.fired } }

    func liveConnections() -> [LiveConnection] { state.withLock { $0.connections } }

    func faultRules() -> [FaultRule] { rules }

    func addFaultRules(_ rules: [FaultRule]) throws(ControlAPIError) {
        try state.withLock { (state: inout State) throws(ControlAPIError) in
            let names = Set(state.rules.map(\.name))
            if let taken = rules.first(where: { names.contains($0.name) }) {
                throw ControlAPIError(.alreadyExists, "a fault named \"\(taken.name)\" exists already")
            }
            state.rules += rules
        }
    }

    func removeFaultRule(named name: String) throws(ControlAPIError) {
        try state.withLock { (state: inout State) throws(ControlAPIError) in
            guard let index = state.rules.firstIndex(where: { $0.name == name }) else {
                throw ControlAPIError(.notFound, "no fault named \"\(name)\"")
            }
            state.rules.remove(at: index)
        }
    }

    func replaceFaultRules(_ rules: [FaultRule], seed: UInt64?) {
        state.withLock {
            $0.rules = rules
            $0.seed = seed
        }
    }

    func fire(_ action: FaultAction, direction: FaultDirection, on connection: Int, name: String)
        throws(ControlAPIError)
    {
        try state.withLock { (state: inout State) throws(ControlAPIError) in
            guard state.connections.contains(where: { $0.id == connection }) else {
                throw ControlAPIError(.notFound, "no connection \(connection)")
            }
            state.fired.append(Fired(action: action, direction: direction, connection: connection, name: name))
        }
    }

    func transcriptLines(from: Int) -> (lines: String, next: Int) {
        state.withLock { state in
            let lines = state.transcript.dropFirst(from).map { $0 + "\n" }.joined()
            return (lines, state.transcript.count)
        }
    }

    func metrics() -> ProxyMetrics { state.withLock { $0.metrics } }

    func startListener(proxy name: String, listen: String, upstream: String) throws(ControlAPIError) -> String {
        listen
    }

    func stopListener(proxy name: String) {}
}
