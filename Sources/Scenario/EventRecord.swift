/// One of a scenario's events as the run played it, or could not: the event timeline of the reports, and a
/// failed `event.<index>.<name>` verdict when it never played.
public struct EventRecord: Sendable, Hashable {
    /// Its position in the scenario's `events`, from 0.
    public var index: Int
    /// The event's name (`add-assets`).
    public var event: String
    /// Its trigger as the file says it (`at 100ms`, `at-progress 70% of video`).
    public var trigger: String
    /// When it played, in microseconds on the run's clock (the one `at` is measured on: since the client's first
    /// session started); nil when it never played.
    public var runMicroseconds: Int64?
    /// When it played on the proxy's clock, the one the transcript and the fault timeline use.
    public var proxyMicroseconds: Int64?
    /// What it did: pids signalled, connections reset, assets added.
    public var did: [String]
    /// Why it never played, when it did not: `the client settled at 71 ms and the run times out at 5 s`.
    public var notPlayed: String?

    public init(
        index: Int, event: String, trigger: String, runMicroseconds: Int64? = nil, proxyMicroseconds: Int64? = nil,
        did: [String] = [], notPlayed: String? = nil
    ) {
        self.index = index
        self.event = event
        self.trigger = trigger
        self.runMicroseconds = runMicroseconds
        self.proxyMicroseconds = proxyMicroseconds
        self.did = did
        self.notPlayed = notPlayed
    }

    /// Whether the event played.
    public var played: Bool { runMicroseconds != nil }

    /// The verdict key of an event that never played: `event.0.add-assets`.
    public var key: String { "event.\(index).\(event)" }
}
