import ControlAPI
import FaultEngine
import Synchronization

/// A `ProxyRuntime` without sockets, for control-API and `squall fault` tests: keeps rules in memory, records every call, hands out made-up listener ports
/// (40001, 40002, …) and fails to bind the addresses in `failingListens`.
public final class FakeRuntime: ProxyRuntime {
    /// One `fire` call.
    public struct Fired: Hashable, Sendable {
        public var action: FaultAction
        public var direction: FaultDirection
        public var connection: Int
        public var name: String

        public init(action: FaultAction, direction: FaultDirection, connection: Int, name: String) {
            self.action = action
            self.direction = direction
            self.connection = connection
            self.name = name
        }
    }

    public struct State: Sendable {
        public var rules: [FaultRule] = []
        public var seed: UInt64?
        public var connections: [LiveConnection] = []
        public var fired: [Fired] = []
        /// Listener calls in order: "start NAME LISTEN UPSTREAM -> BOUND", "start NAME … failed", "stop NAME".
        public var listenerCalls: [String] = []
        public var failingListens: Set<String> = []
        public var nextPort = 40001
        public var transcript: [String] = []
        public var metrics = ProxyMetrics()
        /// What `faultStatuses` answers, by rule name; a rule without one is armed and has not fired.
        public var statuses: [String: FaultRuleStatus] = [:]
    }

    public let state = Mutex(State())

    public init(connections: [LiveConnection] = [], transcript: [String] = []) {
        state.withLock {
            $0.connections = connections
            $0.transcript = transcript
        }
    }

    public var rules: [FaultRule] { state.withLock { $0.rules } }
    public var listenerCalls: [String] { state.withLock { $0.listenerCalls } }
    public var fired: [Fired] { state.withLock { $0.fired } }

    public func liveConnections() -> [LiveConnection] { state.withLock { $0.connections } }

    public func faultRules() -> [FaultRule] { rules }

    public func faultStatuses() -> [FaultRuleStatus] {
        state.withLock { state in
            state.rules.map { state.statuses[$0.name] ?? FaultRuleStatus(name: $0.name, fired: 0, state: .armed) }
        }
    }

    public func addFaultRules(_ rules: [FaultRule]) throws(ControlAPIError) {
        try state.withLock { (state: inout State) throws(ControlAPIError) in
            let names = Set(state.rules.map(\.name))
            if let taken = rules.first(where: { names.contains($0.name) }) {
                throw ControlAPIError(.alreadyExists, "a fault named \"\(taken.name)\" exists already")
            }
            state.rules += rules
        }
    }

    public func removeFaultRule(named name: String) throws(ControlAPIError) {
        try state.withLock { (state: inout State) throws(ControlAPIError) in
            guard let index = state.rules.firstIndex(where: { $0.name == name }) else {
                throw ControlAPIError(.notFound, "no fault named \"\(name)\"")
            }
            state.rules.remove(at: index)
        }
    }

    public func replaceFaultRules(_ rules: [FaultRule], seed: UInt64?) {
        state.withLock {
            $0.rules = rules
            $0.seed = seed
        }
    }

    public func fire(_ action: FaultAction, direction: FaultDirection, on connection: Int, name: String)
        throws(ControlAPIError)
    {
        try state.withLock { (state: inout State) throws(ControlAPIError) in
            guard state.connections.contains(where: { $0.id == connection }) else {
                throw ControlAPIError(.notFound, "no connection \(connection)")
            }
            state.fired.append(Fired(action: action, direction: direction, connection: connection, name: name))
        }
    }

    public func transcriptLines(from: Int) -> (lines: String, next: Int) {
        state.withLock { state in
            let lines = state.transcript.dropFirst(from).map { $0 + "\n" }.joined()
            return (lines, state.transcript.count)
        }
    }

    /// Answers at once: a test appends to `state.transcript` before it asks.
    public func waitForTranscriptLines(from: Int, timeout: Duration) -> (lines: String, next: Int) {
        transcriptLines(from: from)
    }

    public func metrics() -> ProxyMetrics { state.withLock { $0.metrics } }

    public func startListener(proxy name: String, listen: String, upstream: String) throws(ControlAPIError) -> String {
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

    public func stopListener(proxy name: String) {
        state.withLock { $0.listenerCalls.append("stop \(name)") }
    }
}
