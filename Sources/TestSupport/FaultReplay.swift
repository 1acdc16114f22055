import FaultEngine

/// A `FaultBudget` without a lock, for one test thread: connections' `ConnectionFaults` ask it as the proxy's
/// locked `EngineBox` is asked. Counts the times it was asked (`asks`).
public final class BudgetCell: FaultBudgetAccess {
    public var budget: FaultBudget
    /// How many times a connection took the budget.
    public private(set) var asks = 0

    public init(rules: [FaultRule] = [], seed: UInt64 = 1) {
        self.budget = FaultBudget(rules: rules, seed: seed)
    }

    public var version: Int { budget.version }

    public func withBudget<R: Sendable>(_ body: (inout FaultBudget) -> R) -> R {
        asks += 1
        return body(&budget)
    }

    public func report(_ outcome: FaultOutcome) {}
}

/// Replays the event sequence of several connections: one `ConnectionFaults` per connection (opened by its
/// `connectionOpened`), all asking one `FaultBudget`, in event order, as the proxy's connections do.
public struct FaultReplay {
    public let cell: BudgetCell
    public var connections: [Int: ConnectionFaults] = [:]

    public init(rules: [FaultRule], seed: UInt64) {
        self.cell = BudgetCell(rules: rules, seed: seed)
    }

    public var neverFired: [String] { cell.budget.neverFired }
    public var neverFiredReasons: [String: String] { cell.budget.neverFiredReasons }
    public var statuses: [FaultRuleStatus] { cell.budget.statuses }
    public func firings(of name: String) -> Int { cell.budget.firings(of: name) }

    /// Feeds one event to its connection's faults; returns the faults that fire at it.
    public mutating func handle(_ event: FaultEvent) -> [FaultDecision] {
        outcome(event).decisions
    }

    /// Feeds one event to its connection's faults (a `connectionOpened` creates them, a `connectionClosed` drops
    /// them); returns its outcome.
    public mutating func outcome(_ event: FaultEvent) -> FaultOutcome {
        let id = Self.connection(of: event)
        if case .connectionOpened = event { connections[id] = ConnectionFaults(connection: id) }
        guard var faults = connections[id] else { return FaultOutcome() }
        let outcome = faults.outcome(event, budget: cell)
        connections[id] = faults
        if case .connectionClosed = event { connections[id] = nil }
        return outcome
    }

    /// Time passed on every connection: each one's due triggers, in connection order.
    public mutating func tick(time: Duration) -> [FaultDecision] {
        connections.keys.sorted().flatMap { handle(.due(connection: $0, time: time)) }
    }

    /// When connection `id`'s next delayed trigger is due (from its own arms).
    public func nextDue(on id: Int) -> Duration? {
        connections[id]?.nextDue
    }

    static func connection(of event: FaultEvent) -> Int {
        switch event {
        case .connectionOpened(let id, _, _), .connectionClosed(let id, _), .requestHead(let id, _, _),
            .requestBody(let id, _, _, _, _), .responseHead(let id, _, _), .responseBody(let id, _, _),
            .due(let id, _):
            id
        }
    }
}
