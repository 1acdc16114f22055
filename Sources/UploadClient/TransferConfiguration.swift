import HTTPWire
import ResumableUpload

/// How an `UploadTransfer` uploads: the request the caller wants, the resumable-upload choices and the timeouts.
public struct TransferConfiguration: Sendable {
    /// The creation request's method. Default POST.
    /// A defect, for negative controls only (`squall explore`'s tests, `ScenarioRunOptions.clientResumesFromZero`):
    /// an append after an offset retrieval starts at byte 0 instead of the server's offset. Default false.
    public var resumesFromZero = false
    public var method: HTTPMethod
    /// Fields the caller adds (authorization, content type, …). All of them go on the creation; on HEAD, PATCH
    /// and DELETE everything but representation metadata and framing (`Content-*`, `Upload-*`,
    /// `Transfer-Encoding`, `Expect`) goes too, so authorization reaches every request. Default none.
    public var headerFields: HTTPFields
    /// The interop version to speak (3 … 8), or nil for a plain upload (no 104 expected, nothing to resume).
    /// Default 8 (iOS 26).
    public var interopVersion: InteropVersion?
    /// The most content bytes per creation or append request, or nil for the whole file in one request. The
    /// server's `max-append-size` lowers it and its `min-append-size` raises it. Default nil.
    public var appendSize: Int64?
    /// Automatic resumes (HEAD then PATCH, or a PATCH after 409) before the transfer gives up with its last
    /// transient error. They are not job retries. Default 5.
    public var maximumResumeAttempts: Int
    /// The backoff before resume attempt n (and, in `UploadSystem`, before a job's retry n) is `backoffBase` ×
    /// 2^(n−1), at most `backoffLimit`. Defaults 1 s and 30 s.
    public var backoffBase: Duration
    public var backoffLimit: Duration
    /// The system's developer mode: every backoff is shortened to at most `developerModeBackoffLimit`, never
    /// removed, so a transfer still rides out a server that is down for a moment. Default false.
    public var developerMode: Bool
    /// How long opening a connection (TCP and TLS handshake) may take. Default 10 s.
    public var connectTimeout: Duration
    /// How long a connection may make no progress (nothing read, nothing written) while a request is out.
    /// Default 60 s.
    public var readTimeout: Duration
    /// The PEM file of the CAs trusted for `https`, or nil for the system roots. Default nil.
    public var trustedCAFile: String?
    /// The size of each read from the file and write to the connection. Default 64 KiB.
    public var chunkSize: Int
    /// The upload resource (`Location`) of an earlier transfer of the same file that did not finish, e.g. one a
    /// killed client recorded: the transfer then makes no preflight and no creation but asks that resource for its
    /// offset (HEAD, §3.4) and appends from there; when the server no longer knows it (404, 410), it starts over
    /// with a creation from byte 0. Ignored for a plain upload (`interopVersion` nil). Default nil.
    public var resumeLocation: String?
    /// Whether the request that completes a resumable upload states the file's SHA-256 in `Repr-Digest` (RFC 9530),
    /// so that the server can check the whole upload (the reference server fails an upload that does not match).
    /// The file is read once more, when that request is about to go. Default true.
    public var statesRepresentationDigest = true
    /// Which HTTP the transfer speaks: HTTP/1.1, HTTP/2 (its requests streams of a connection the transfers of an
    /// `UploadSystem` share), or HTTP/2 when the server chooses it in ALPN. Default HTTP/1.1.
    public var http = HTTPChoice.http1

    public init(
        method: HTTPMethod = .post, headerFields: HTTPFields = [:],
        interopVersion: InteropVersion? = InteropVersion(rawValue: 8), appendSize: Int64? = nil,
        maximumResumeAttempts: Int = 5, backoffBase: Duration = .seconds(1), backoffLimit: Duration = .seconds(30),
        developerMode: Bool = false, connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(60),
        trustedCAFile: String? = nil, chunkSize: Int = 64 * 1024, resumeLocation: String? = nil
    ) {
        self.method = method
        self.headerFields = headerFields
        self.interopVersion = interopVersion
        self.appendSize = appendSize
        self.maximumResumeAttempts = maximumResumeAttempts
        self.backoffBase = backoffBase
        self.backoffLimit = backoffLimit
        self.developerMode = developerMode
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.trustedCAFile = trustedCAFile
        self.chunkSize = chunkSize
        self.resumeLocation = resumeLocation
    }

    /// The longest backoff in developer mode: 1 s.
    public static let developerModeBackoffLimit: Duration = .seconds(1)

    /// The delay before resume attempt (or job retry) `attempt` (1-based): `backoffBase` × 2^(attempt−1), at most
    /// `backoffLimit`, and at most `developerModeBackoffLimit` in developer mode.
    public func backoff(beforeAttempt attempt: Int) -> Duration {
        let limit = developerMode ? min(backoffLimit, Self.developerModeBackoffLimit) : backoffLimit
        var delay = backoffBase
        for _ in 1..<max(attempt, 1) {
            delay = delay * 2
            if delay >= limit { return limit }
        }
        return min(delay, limit)
    }
}
