import ProxyTranscript
import UploadJobs

/// What a run of a scenario produced, gathered by the runner for the oracle: the client's ledger, the proxy's
/// transcript, the server's uploads (nil behind `--upstream`), the assets' digests, and the system's counters.
public struct RunObservation: Sendable {
    public var ledger: JobLedger
    public var transcript: Transcript
    public var serverUploads: [ServerUpload]?
    public var assets: [AssetDigest]
    /// Each `processJobs()` result in order (`processing`, `completed`, `failure`).
    public var processJobsResults: [String]
    /// The most transfers running at once.
    public var peakInFlight: Int
    /// Declared, non-optional faults that never fired.
    public var neverFired: [String]
    /// Why a fault of `neverFired` could not fire, when the proxy knows (`70% of an upload whose length the
    /// proxy never learned (PATCH /upload/7)`).
    public var neverFiredReasons: [String: String] = [:]
    public var wallTime: Duration
    /// The run was stopped at the scenario's timeout.
    public var timedOut: Bool
    /// Every event of the scenario, played or not, in the scenario's order.
    public var events: [EventRecord]
    /// The proxy's URL (`https://127.0.0.1:PORT`): every request of the client must go there.
    public var proxyOrigin: String?
    /// The path of token requests through the proxy (`auth-refreshes`); nil when they do not go through it.
    public var tokenPath: String? = "/_squall/token"
    /// What the app's extension did that the ledger cannot show (`ExtensionConduct`), when the client ran one
    /// (`Squall.main(extension:urlBase:)`); nil with the built-in policy. Non-nil adds the `extension.*` verdicts.
    public var extensionConduct: [ExtensionConduct]?
    /// Why the server's state is not observable, when `serverUploads` is nil.
    public var noServerState = "not observable: no server introspection (--upstream)"
    /// The interop versions the server serves resumably, when the run knows them (the reference server's, a
    /// profile's `interop`): `server-conformance` then fails a creation at another version refused with a 4xx.
    public var servedInterop: Set<Int>?

    public init(
        ledger: JobLedger, transcript: Transcript, serverUploads: [ServerUpload]?, assets: [AssetDigest],
        processJobsResults: [String], peakInFlight: Int, neverFired: [String], wallTime: Duration, timedOut: Bool,
        events: [EventRecord] = []
    ) {
        self.ledger = ledger
        self.transcript = transcript
        self.serverUploads = serverUploads
        self.assets = assets
        self.processJobsResults = processJobsResults
        self.peakInFlight = peakInFlight
        self.neverFired = neverFired
        self.wallTime = wallTime
        self.timedOut = timedOut
        self.events = events
    }
}

/// One upload in the reference server's store.
public struct ServerUpload: Sendable, Hashable, Codable {
    public var id: String
    public var complete: Bool
    public var cancelled: Bool
    public var length: Int64?
    public var offset: Int64
    public var sha256: String?

    public init(id: String, complete: Bool, cancelled: Bool, length: Int64?, offset: Int64, sha256: String?) {
        self.id = id
        self.complete = complete
        self.cancelled = cancelled
        self.length = length
        self.offset = offset
        self.sha256 = sha256
    }
}

/// One asset the client uploads: the name (the job's asset id is the file path ending in it), size and SHA-256.
public struct AssetDigest: Sendable, Hashable, Codable {
    public var name: String
    /// The asset id the client's jobs carry (the file's path).
    public var assetID: String
    public var size: Int64
    public var sha256: String

    public init(name: String, assetID: String, size: Int64, sha256: String) {
        self.name = name
        self.assetID = assetID
        self.size = size
        self.sha256 = sha256
    }
}
