/// One expected outcome (DESIGN.md "Scenario files", "Expectations"), from the `expect` object. Each key below
/// is the JSON spelling; counts are a number, `"all"` (the scenario's job count) or `{"min": N, "max": M}`.
///
/// ```json
/// "expect": {
///   "jobs": {"succeeded": "all", "failed": 0},      // job outcomes by final state
///   "acknowledged-once": true,                      // every job acknowledged exactly once
///   "acknowledged-at-most-once": true,              // no job acknowledged twice (jobs may still be held)
///   "attempts": {"max": 2}, "retries": {"max": 1},  // per job
///   "retry-limit-respected": true,
///   "resumptions": {"min": 1},                      // automatic resumes, all jobs
///   "appends-at-server-offset": true,               // each PATCH starts at the offset the server last reported
///   "server-offset-at-cut": true,                   // after each reset at an offset, the server reports that offset
///   "retransmitted-bytes": {"max": 0},              // bytes sent beyond each asset's size, all jobs
///   "restarts-from-zero": 0,                        // requests that started an asset over from byte 0
///   "peak-in-flight": {"max": 2},
///   "auth-refreshes": {"min": 1},                   // token requests in the run after the first (relaunches too)
///   "requests": {"OPTIONS": {"max": 1}},            // requests per method seen by the proxy
///   "server-objects-intact": true,                  // each asset once on the server, SHA-256 equal; no duplicates
///   "no-job-lost": true,                            // each asset on the server intact, or failed, or still held
///   "acknowledged-bytes-kept": true,                // no upload's acknowledged offset goes down or is forgotten
///   "no-avoidable-duplicates": true,                // no two complete copies of an asset that the client knew of
///   "server-resource-ids-recorded": true,           // each succeeded job recorded the server's resource id
///   "job-errors": {"networkConnectionLost": {"min": 1}},
///   "process-jobs-results": {"failure": 0},
///   "wall-time": {"max": "10s"},
///   "refused-streams-retried": true,                // each HTTP/2 request refused by GOAWAY sent again, answered
///   "server-conformance": true                      // every answer of the server follows the draft (or
///                                                   // {"allow": ["completion-field"]}: those rules tolerated)
/// }
/// ```
public enum Expectation: Sendable, Hashable {
    case jobs(state: String, Count)
    case acknowledgedOnce(Bool)
    case acknowledgedAtMostOnce(Bool)
    case noJobLost(Bool)
    case acknowledgedBytesKept(Bool)
    case noAvoidableDuplicates(Bool)
    case attempts(Count)
    case retries(Count)
    case retryLimitRespected(Bool)
    case resumptions(Count)
    case appendsAtServerOffset(Bool)
    /// After every `reset` fired at an upload offset, the first HEAD on that upload resource reports exactly that
    /// offset: the server kept every byte the proxy delivered before the cut, no more, no fewer.
    case serverOffsetAtCut(Bool)
    /// Every request of an HTTP/2 stream the proxy refused (`REFUSED_STREAM`) was sent again and answered.
    case refusedStreamsRetried(Bool)
    case retransmittedBytes(Count)
    case restartsFromZero(Count)
    case peakInFlight(Count)
    case authRefreshes(Count)
    case requests(method: String, Count)
    case serverObjectsIntact(Bool)
    case serverResourceIDsRecorded(Bool)
    case jobErrors(code: String, Count)
    case processJobsResults(result: String, Count)
    case wallTime(max: Duration)
    /// Every answer the server gave follows the resumable-upload draft at the request's interop version
    /// (`ServerConformance`), but for deviations of the `allowed` rules (their codes); `false` expects a deviation.
    case serverConformance(Bool, allowed: [String])

    /// The JSON key (with the sub-key for keyed ones: `jobs.succeeded`, `requests.OPTIONS`).
    public var key: String {
        switch self {
        case .jobs(let state, _): "jobs.\(state)"
        case .acknowledgedOnce: "acknowledged-once"
        case .acknowledgedAtMostOnce: "acknowledged-at-most-once"
        case .noJobLost: "no-job-lost"
        case .acknowledgedBytesKept: "acknowledged-bytes-kept"
        case .noAvoidableDuplicates: "no-avoidable-duplicates"
        case .attempts: "attempts"
        case .retries: "retries"
        case .retryLimitRespected: "retry-limit-respected"
        case .resumptions: "resumptions"
        case .appendsAtServerOffset: "appends-at-server-offset"
        case .serverOffsetAtCut: "server-offset-at-cut"
        case .refusedStreamsRetried: "refused-streams-retried"
        case .retransmittedBytes: "retransmitted-bytes"
        case .restartsFromZero: "restarts-from-zero"
        case .peakInFlight: "peak-in-flight"
        case .authRefreshes: "auth-refreshes"
        case .requests(let method, _): "requests.\(method)"
        case .serverObjectsIntact: "server-objects-intact"
        case .serverResourceIDsRecorded: "server-resource-ids-recorded"
        case .jobErrors(let code, _): "job-errors.\(code)"
        case .processJobsResults(let result, _): "process-jobs-results.\(result)"
        case .wallTime: "wall-time"
        case .serverConformance: "server-conformance"
        }
    }

    /// Every top-level key, for messages and the schema.
    public static let keys = [
        "jobs", "acknowledged-once", "attempts", "retries", "retry-limit-respected", "resumptions",
        "appends-at-server-offset", "server-offset-at-cut", "retransmitted-bytes", "restarts-from-zero",
        "peak-in-flight", "auth-refreshes",
        "requests", "server-objects-intact", "server-resource-ids-recorded", "job-errors", "process-jobs-results",
        "wall-time", "server-conformance", "acknowledged-at-most-once", "no-job-lost", "acknowledged-bytes-kept",
        "no-avoidable-duplicates", "refused-streams-retried",
    ]

    /// Whether judging it needs the reference server's state (skipped against `--upstream`).
    public var needsServerIntrospection: Bool {
        switch self {
        case .serverObjectsIntact, .serverResourceIDsRecorded, .noAvoidableDuplicates: true
        default: false
        }
    }

    /// An expected count: exactly N, all jobs, or a range (either end open).
    public enum Count: Sendable, Hashable, CustomStringConvertible {
        case exactly(Int64)
        case all
        case range(min: Int64?, max: Int64?)

        /// Whether `value` satisfies it, `all` meaning `total`.
        public func accepts(_ value: Int64, total: Int64) -> Bool {
            switch self {
            case .exactly(let expected): value == expected
            case .all: value == total
            case .range(let low, let high): (low.map { value >= $0 } ?? true) && (high.map { value <= $0 } ?? true)
            }
        }

        public var description: String {
            switch self {
            case .exactly(let value): "\(value)"
            case .all: "all"
            case .range(let low?, let high?): "\(low)…\(high)"
            case .range(let low?, nil): "≥ \(low)"
            case .range(nil, let high?): "≤ \(high)"
            case .range(nil, nil): "any"
            }
        }
    }
}
