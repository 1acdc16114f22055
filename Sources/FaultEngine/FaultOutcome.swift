/// What the engine answers to one event: the faults that fire, and the rules it could not place in the request
/// they matched (see `UnresolvedFault`).
public struct FaultOutcome: Sendable, Hashable {
    public var decisions: [FaultDecision]
    public var unresolved: [UnresolvedFault]
    /// For a head event: whether an arm of the connection waits on body bytes (`at-offset`,
    /// `after-response-bytes`, `truncate-response`) until the next head. When false, the driver need not report
    /// body bytes (the connection's delayed triggers fire on its ticks). Nil: not said.
    public var watchesBody: Bool?

    public init(decisions: [FaultDecision] = [], unresolved: [UnresolvedFault] = [], watchesBody: Bool? = nil) {
        self.decisions = decisions
        self.unresolved = unresolved
        self.watchesBody = watchesBody
    }
}

/// A rule that matched a request but cannot fire in it: an `at-offset` percentage on an upload whose length the
/// engine never learned (neither the request, nor an earlier creation, announcement or offset retrieval of the
/// same resource said it). Reported once per rule and request, at the request's first body bytes.
public struct UnresolvedFault: Sendable, Hashable {
    /// The rule's name.
    public var rule: String
    public var connection: Int
    /// Why, with the request it met: `70% of an upload whose length the proxy never learned (PATCH /upload/7)`.
    public var reason: String
    public var time: Duration

    public init(rule: String, connection: Int, reason: String, time: Duration) {
        self.rule = rule
        self.connection = connection
        self.reason = reason
        self.time = time
    }
}
