import FaultEngine

/// One scenario file (`Scenarios/*.json`, DESIGN.md "Scenario files"): what to run — server, client, assets,
/// faults, events — and what must be observed. Values only; `ScenarioLoader` reads them strictly from JSON.
///
/// Defaults: `seed` 1, `timeout` 30 s, `ServerSpec()`, `ClientSpec()`, no faults, no events.
public struct Scenario: Sendable, Hashable {
    /// Unique within a catalog; `[a-z0-9-]+`.
    public var name: String
    /// What the scenario proves, in a sentence or two.
    public var description: String
    public var seed: UInt64
    /// The run stops (and fails) when it takes longer.
    public var timeout: Duration
    public var server: ServerSpec
    public var client: ClientSpec
    /// At least one.
    public var assets: [AssetSpec]
    public var faults: [FaultRule]
    public var events: [ScenarioEvent]
    public var expect: [Expectation]
    /// The file it came from, for messages (nil when built in code).
    public var file: String?

    public init(
        name: String, description: String, seed: UInt64 = 1, timeout: Duration = .seconds(30),
        server: ServerSpec = ServerSpec(), client: ClientSpec = ClientSpec(), assets: [AssetSpec],
        faults: [FaultRule] = [], events: [ScenarioEvent] = [], expect: [Expectation], file: String? = nil
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.timeout = timeout
        self.server = server
        self.client = client
        self.assets = assets
        self.faults = faults
        self.events = events
        self.expect = expect
        self.file = file
    }

    /// How many jobs the scenario's assets make (assets added by events included): what `"all"` counts.
    public var assetCount: Int {
        allAssets.reduce(0) { $0 + $1.count }
    }

    /// The bytes of every asset file the scenario makes (assets added by events included), at most `Int64.max`.
    public var assetBytes: Int64 {
        allAssets.bytes
    }

    /// The assets, then those `add-assets` events add, in file order.
    public var allAssets: [AssetSpec] {
        assets
            + events.compactMap { event in
                if case .addAssets(let spec) = event.action { return spec }
                return nil
            }
    }
}

/// The reference server's set-up (`server` key). JSON keys: `interop` ([3…10]), `max-size`, `max-append-size`
/// (sizes), `max-age` (duration), `token-ttl` (duration; turns bearer auth on), `resumable` (bool),
/// `progress-interval` (size; 0 for no progress 104s), `progress-limit` (progress 104s per request),
/// `progress-spacing` (duration), `upstream` (URL: the user's server instead of ours, or a server profile object
/// with its `url`).
public struct ServerSpec: Sendable, Hashable {
    /// Interop versions served resumably. Default 3…10, every one implemented.
    public var interop: [Int] = Array(3...10)
    public var maxSize: Int64?
    public var maxAppendSize: Int64?
    public var maxAge: Duration?
    /// Bearer-token auth with tokens of this lifetime; nil: no auth.
    public var tokenTTL: Duration?
    public var resumable = true
    /// Bytes between progress 104s. Default 64 KiB (so scenarios see several).
    public var progressInterval: Int64 = 64 * 1024
    /// Most progress 104s per request. Default nil: no limit (unlike `squall server`'s 3, so that scenarios see
    /// one every `progressInterval`, as their expectations about resumption from reported offsets assume).
    public var progressLimit: Int?
    /// Least time from a request's start to its first progress 104 and between two. Default zero: none (unlike
    /// `squall server`'s 1 s), for the same reason.
    public var progressSpacing: Duration = .zero
    /// An external server to run against; nil runs the reference server.
    public var upstream: String?
    /// What that server serves and allows, when the scenario says (`server.upstream` as an object).
    public var profile: ServerProfile?

    public init() {}
}

/// The reference client's set-up (`client` key). JSON keys: `interop` (3…10 or `"none"` for plain uploads),
/// `retry-limit`, `inflight-limit`, `append-size` (size), `resume-attempts`, `developer-mode` (bool),
/// `refresh-auth` (bool), `permanent-errors` ([error codes]), `read-timeout` (duration), `http` (`"h2"`,
/// `"http/1.1"` or `"auto"`).
public struct ClientSpec: Sendable, Hashable {
    /// The interop version sent; nil sends plain uploads. Default 8, or against an outside server the newest its
    /// profile lists.
    public var interop: Int? = 8
    /// Whether the scenario chose `interop` (else the default applies).
    public var interopGiven = false
    public var retryLimit = 3
    public var inflightLimit = 16
    /// Bytes per PATCH when resuming (nil: the rest of the file).
    public var appendSize: Int64?
    /// Automatic resumes after a 104 before the job fails. Default 5.
    public var resumeAttempts = 5
    /// No runtime limit per invocation and no backoff between invocations; resume and retry waits are capped at
    /// 1 s rather than removed. Default true (scenarios run fast).
    public var developerMode = true
    /// Refresh the bearer token after a 401. Default true.
    public var refreshAuth = true
    /// Errors the policy acknowledges instead of retrying. Default `badServerResponse`,
    /// `userAuthenticationRequired`.
    public var permanentErrors: [String] = ["badServerResponse", "userAuthenticationRequired"]
    /// How long a transfer waits for the server before it counts as timed out. Default 5 s (scenarios scale
    /// their stalls to hundreds of milliseconds).
    public var readTimeout: Duration = .seconds(5)
    /// The HTTP the client speaks to the proxy: `h2` (uploads multiplexed on one connection; the proxy then offers
    /// h2 in ALPN), `http/1.1`, or `auto` (h2 when the proxy chooses it). Default `http/1.1`.
    public var http = "http/1.1"
    /// Whether the scenario chose `http` (else the default applies, and `squall run --http-matrix` varies it).
    public var httpGiven = false
    /// The values `http` takes.
    public static let httpChoices = ["h2", "http/1.1", "auto"]

    public init() {}
}

/// Files to upload (`assets` key): `{"name": "photo", "size": "3MiB", "count": 2}`. Contents derive from the
/// scenario's seed and the name (and index), so a run is reproducible without storing files.
public struct AssetSpec: Sendable, Hashable {
    public var name: String
    public var size: Int64
    public var count: Int

    public init(name: String, size: Int64, count: Int = 1) {
        self.name = name
        self.size = size
        self.count = count
    }

    /// The bytes of its files: `size` × `count`, at most `Int64.max`.
    public var bytes: Int64 {
        let (product, overflow) = size.multipliedReportingOverflow(by: Int64(count))
        return overflow ? .max : product
    }

    /// The asset names this spec makes: `name` when count is 1, else `name-1` … `name-N`.
    public var names: [String] {
        count == 1 ? [name] : (1...max(count, 1)).map { "\(name)-\($0)" }
    }
}

extension Sequence<AssetSpec> {
    /// The bytes of every file the specs make, at most `Int64.max`.
    public var bytes: Int64 {
        reduce(0) { $0.addingSize($1.bytes) }
    }
}

extension Int64 {
    /// `self + size`, or `Int64.max` when the sum does not fit: sizes add up without wrapping.
    func addingSize(_ size: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(size)
        return overflow ? .max : sum
    }
}
