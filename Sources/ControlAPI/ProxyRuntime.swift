import FaultEngine

/// What the control API asks of the running proxy: the native endpoints read and steer it through this, and the
/// Toxiproxy-compatible proxies get their listeners from it. `ChaosProxy` implements it; tests use a fake.
///
/// Every call returns promptly and never waits on the data path: connection threads pick changes up on their
/// next wake-up.
public protocol ProxyRuntime: AnyObject, Sendable {
    /// The live connections, oldest first.
    func liveConnections() -> [LiveConnection]

    /// The proxy's own fault rules (from `--scenario` and the native API), in the order they were added.
    func faultRules() -> [FaultRule]

    /// How each of those rules stands (fired count, state, why it could not fire), in the same order.
    func faultStatuses() -> [FaultRuleStatus]

    /// Adds rules; a name already in use is `.alreadyExists` and nothing is added.
    func addFaultRules(_ rules: [FaultRule]) throws(ControlAPIError)

    /// Removes the rule named `name`; effects it started on live connections stop. Unknown: `.notFound`.
    func removeFaultRule(named name: String) throws(ControlAPIError)

    /// Replaces every rule (loading a scenario's faults); `seed` reseeds the probability draws when given.
    func replaceFaultRules(_ rules: [FaultRule], seed: UInt64?)

    /// Applies `action` to live connection `connection` now, as if a rule named `name` had fired. Unknown
    /// connection: `.notFound`; an HTTP action on a tcp-mode connection: `.badRequest`.
    func fire(_ action: FaultAction, direction: FaultDirection, on connection: Int, name: String)
        throws(ControlAPIError)

    /// The transcript's kept events from index `from` on (0: all), as JSON Lines, and the index to ask for next.
    func transcriptLines(from: Int) -> (lines: String, next: Int)

    /// Like `transcriptLines(from:)`, but waits up to `timeout` for a line when there is none from `from` yet, and
    /// may give only the first lines of many (a batch; ask again from `next`) (`GET /squall/events`).
    func waitForTranscriptLines(from: Int, timeout: Duration) -> (lines: String, next: Int)

    /// Counters for `GET /metrics`.
    func metrics() -> ProxyMetrics

    /// Starts the listener of a Toxiproxy-compatible proxy: tcp mode from `listen` ("host:port", loopback
    /// only; port 0 picks one) to `upstream` ("host:port"), faults from `ControlAPIHandler.rules(for: name)`.
    /// Returns the bound address ("127.0.0.1:PORT"). A bind failure is `.badRequest` naming the address.
    func startListener(proxy name: String, listen: String, upstream: String) throws(ControlAPIError) -> String

    /// Stops that listener and closes its connections (a disabled or deleted proxy). Unknown names are ignored.
    func stopListener(proxy name: String)
}

/// One live connection as the control API lists it.
public struct LiveConnection: Sendable, Hashable, Encodable {
    /// The proxy's connection id (the transcript's `connection`).
    public var id: Int
    /// Which proxy accepted it: "main" for `squall proxy`'s own listener, else the Toxiproxy proxy's name.
    public var proxy: String
    /// The client's address, "host:port".
    public var client: String
    /// Seconds since it was accepted.
    public var age: Double
    public var bytesUpstream: Int64
    public var bytesDownstream: Int64
    /// Requests seen so far (http mode).
    public var requests: Int

    public init(
        id: Int, proxy: String, client: String, age: Double, bytesUpstream: Int64, bytesDownstream: Int64,
        requests: Int
    ) {
        self.id = id
        self.proxy = proxy
        self.client = client
        self.age = age
        self.bytesUpstream = bytesUpstream
        self.bytesDownstream = bytesDownstream
        self.requests = requests
    }
}

/// The proxy's counters, for the Prometheus text of `GET /metrics`.
public struct ProxyMetrics: Sendable, Hashable {
    /// Bytes forwarded client → server.
    public var bytesUpstream: Int64 = 0
    /// Bytes forwarded server → client.
    public var bytesDownstream: Int64 = 0
    /// Connections accepted and served since start.
    public var connectionsAccepted: Int64 = 0
    /// Connections open now.
    public var connectionsOpen: Int64 = 0
    /// Connections shed since start: over a listener's connection limit, answered 503 (or closed) and not served.
    public var connectionsShed: Int64 = 0
    /// Faults fired since start, by rule name.
    public var faultsFired: [String: Int64] = [:]
    /// Transcript events kept in memory now, and their estimated bytes (`TranscriptEvent.footprint`).
    public var transcriptEvents = 0
    public var transcriptBytes = 0
    /// Transcript events dropped from memory since start (past `--transcript-memory`; the file keeps them).
    public var transcriptDropped = 0

    public init() {}
}
