import ControlAPI
import FaultEngine
import Synchronization

/// A `ProxyRuntime` without sockets: keeps rules in memory, records every call, hands out made-up listener ports
/// (40001, 40002, …) and fails to bind the addresses in `failingListens`.
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
        /// Listener calls in order: "start NAME LISTEN UPSTREAM -> BOUND", "start NAME … failed", "stop NAME".
        var listenerCalls: [String] = []
        var failingListens: Set<String> = []
        var nextPort = 40001
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
    var listenerCalls: [String] { state.withLock { $0.listenerCalls } }
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
        try state.withLock { (state: inout State) throws(ControlAPIError) -> String in
            guard !state.failingListens.contains(listen) else {
                state.listenerCalls.append("start \(name) \(listen) \(upstream) failed")
                throw ControlAPIError(.badRequest, "cannot bind \(listen)")
            }
            let bound = listen.hasSuffix(":0") ? "127.0.0.1:\(state.nextPort)" : listen
            state.nextPort += 1
            state.listenerCalls.append("start \(name) \(listen) \(upstream) -> \(bound)")
            return bound
        }
    }

    func stopListener(proxy name: String) {
        state.withLock { $0.listenerCalls.append("stop \(name)") }
    }
}
