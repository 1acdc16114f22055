import FaultEngine

/// The judgement of one expectation: its key, pass/fail/skip, expected vs observed, and the evidence (which
/// job, which request, which offset, which fault).
public struct Verdict: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        case passed
        case failed
        /// Not judged: it needs what this run cannot see (the server's state behind `--upstream`).
        case skipped
    }

    public var key: String
    public var status: Status
    public var expected: String
    public var observed: String
    public var evidence: [String]

    public init(key: String, status: Status, expected: String, observed: String, evidence: [String] = []) {
        self.key = key
        self.status = status
        self.expected = expected
        self.observed = observed
        self.evidence = evidence
    }
}

/// One fault that fired during a run, as reports show the timeline.
public struct FaultFiring: Sendable, Hashable, Codable {
    /// When the action reached the wire (the RST sent, the answer written), in microseconds since the proxy
    /// started.
    public var timeMicroseconds: Int64
    /// When the engine decided it, when that was earlier (a reset waits for the peer's acknowledgement first).
    public var decidedMicroseconds: Int64?
    public var rule: String
    public var action: String
    public var connection: Int
    public var offset: Int64?

    public init(timeMicroseconds: Int64, rule: String, action: String, connection: Int, offset: Int64?) {
        self.timeMicroseconds = timeMicroseconds
        self.rule = rule
        self.action = action
        self.connection = connection
        self.offset = offset
    }
}

/// Everything a run of one scenario produced, for the reports.
public struct ScenarioResult: Sendable, Hashable {
    public var name: String
    public var file: String?
    public var description: String
    public var seed: UInt64
    /// Wall time of the run.
    public var duration: Duration
    /// The verdicts, in the order of the scenario's expectations, then one per declared fault that never fired
    /// (key `fault.<name>`), one per event that never played (key `event.<index>.<name>`), then `timeout` when
    /// the run did not finish in time.
    public var verdicts: [Verdict]
    public var faultTimeline: [FaultFiring]
    /// Every event of the scenario: when it played and what it did, or why it never played.
    public var eventTimeline: [EventRecord] = []
    /// Each asset's uploads, for the HTML report's charts (`UploadTimeline`).
    public var uploadTimelines: [UploadTimeline] = []
    /// Each job's ledger as JSON (`JobLedger`'s encoding), for `--json`.
    public var ledgerJSON: String?
    /// Why the run itself failed (could not start the server, a crash), if it did.
    public var error: String?
    /// Where its debug bundle is, when one was written.
    public var bundle: String?
    /// What the runner could not do that does not decide the verdict (e.g. a live capture not permitted).
    public var notes: [String] = []
    /// Why the scenario was not run (`needs bearer-token auth (a profile's "auth")`): never passed, never failed.
    public var skipReason: String?
    /// Where the run's time went, for benchmarks (`squall explore`'s cost per schedule); nil when not measured.
    public var phases: ScenarioPhases?

    public init(
        name: String, file: String?, description: String, seed: UInt64, duration: Duration, verdicts: [Verdict],
        faultTimeline: [FaultFiring] = [], ledgerJSON: String? = nil, error: String? = nil, bundle: String? = nil
    ) {
        self.name = name
        self.file = file
        self.description = description
        self.seed = seed
        self.duration = duration
        self.verdicts = verdicts
        self.faultTimeline = faultTimeline
        self.ledgerJSON = ledgerJSON
        self.error = error
        self.bundle = bundle
    }

    /// Not failed: skipped (`skipReason`: whatever its verdicts say, they judged nothing), or no runner error and
    /// no failed verdict.
    public var passed: Bool {
        skipReason != nil || (error == nil && !verdicts.contains { $0.status == .failed })
    }
}

/// Where a scenario run's wall time went: `setup` (folder, CA, assets, server, proxy, client), `run` (the client's
/// sessions and the events, then reading what they left: ledger, transcript, the server's uploads), `judge` (the
/// oracle), `teardown` (stopping everything, the bundle, removing the folder).
public struct ScenarioPhases: Sendable, Hashable {
    public var setup: Duration
    public var run: Duration
    public var judge: Duration
    public var teardown: Duration

    public init(setup: Duration, run: Duration, judge: Duration, teardown: Duration) {
        self.setup = setup
        self.run = run
        self.judge = judge
        self.teardown = teardown
    }
}
