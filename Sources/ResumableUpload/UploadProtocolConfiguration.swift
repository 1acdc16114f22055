/// How a server applies the resumable-upload rules: where uploads are created, where upload resources live,
/// which interop versions it speaks, its limits and its progress policy.
///
/// **Progress 104s.** While a body streams (interop 5+), a `104 Upload Resumption Supported` with `Upload-Offset`
/// goes out once `progressInterval` more bytes have arrived, as long as the request has had fewer than
/// `progressLimit` of them and `progressSpacing` has passed since the request started (for a creation, since its
/// first 104) or since its last progress 104. A 104 the spacing holds back goes out with the first body bytes
/// after the spacing has passed. The defaults (1 MiB, 3 per request, 1 s apart) interoperate with Go's `net/http`
/// before Go 1.24, which fails a request after five informational responses ("net/http: too many 1xx
/// informational responses"), counting every 1xx but 101: a creation's 104 with `Location`, a `100 Continue` when
/// the client sent `Expect: 100-continue`, and three progress 104s make five. The spacing spreads that budget over
/// an upload's first seconds instead of its first megabytes: an upload that takes under a second (a fast loopback
/// one) gets no progress 104 at all, a slow one gets them about a second apart.
public struct UploadProtocolConfiguration: Sendable, Hashable {
    /// A defect, for negative controls only (`squall explore`'s tests): an offset retrieval of an incomplete upload
    /// reports this many bytes beyond what was stored (an append at that offset then meets the real one in a 409).
    /// Default 0: none.
    public var defectOffsetBeyondStored: Int64 = 0
    /// The path of the target resource that accepts creations. Default `/upload`.
    public var creationPath: String
    /// The path prefix of upload resources: `<prefix><id>`. Default `/upload/`.
    public var resourcePathPrefix: String
    /// The interop versions served resumably; a request with another version is a plain upload. Default: all
    /// implemented, 3 … 10.
    public var versions: Set<InteropVersion>
    /// Whether resumability is offered at all; when off, OPTIONS gets 501 and no request gets a 104. Default true.
    public var resumable: Bool
    /// The limits announced and enforced. Default: none (announced as `min-size=0`).
    public var limits: UploadLimits
    /// Bytes between progress 104s while a body streams (interop 5+); 0 sends none. Default 1 MiB.
    public var progressInterval: Int64
    /// Most progress 104s one request gets (a creation's first 104 and a `100 Continue` not counted); nil for no
    /// limit. Default 3, so that a request sees at most five informational responses (see above).
    public var progressLimit: Int?
    /// Least time from a request's start to its first progress 104 and between two of them, on the clock the
    /// machine is given; `.zero` for none. Default 1 s.
    public var progressSpacing: Duration
    /// The status of a successful HEAD where the version allows a choice (interop 5+ allows 200). Default 204.
    public var headStatus: Int

    public init(
        creationPath: String = "/upload",
        resourcePathPrefix: String = "/upload/",
        versions: Set<InteropVersion> = Set(InteropVersion.all),
        resumable: Bool = true,
        limits: UploadLimits = UploadLimits(),
        progressInterval: Int64 = 1 << 20,
        progressLimit: Int? = 3,
        progressSpacing: Duration = .seconds(1),
        headStatus: Int = 204
    ) {
        self.creationPath = creationPath
        self.resourcePathPrefix = resourcePathPrefix
        self.versions = versions
        self.resumable = resumable
        self.limits = limits
        self.progressInterval = progressInterval
        self.progressLimit = progressLimit
        self.progressSpacing = progressSpacing
        self.headStatus = headStatus
    }
}
