/// How a server applies the resumable-upload rules: where uploads are created, where upload resources live,
/// which interop versions it speaks, its limits and its progress cadence.
public struct UploadProtocolConfiguration: Sendable, Hashable {
    /// The path of the target resource that accepts creations. Default `/upload`.
    public var creationPath: String
    /// The path prefix of upload resources: `<prefix><id>`. Default `/upload/`.
    public var resourcePathPrefix: String
    /// The interop versions served resumably; a request with another version is a plain upload. Default: all
    /// implemented, 3 … 8.
    public var versions: Set<InteropVersion>
    /// Whether resumability is offered at all; when off, OPTIONS gets 501 and no request gets a 104. Default true.
    public var resumable: Bool
    /// The limits announced and enforced. Default: none (announced as `min-size=0`).
    public var limits: UploadLimits
    /// Bytes between progress 104s while a body streams (interop 5+); 0 sends none. Default 1 MiB.
    public var progressInterval: Int64
    /// The status of a successful HEAD where the version allows a choice (interop 5+ allows 200). Default 204.
    public var headStatus: Int

    public init(
        creationPath: String = "/upload",
        resourcePathPrefix: String = "/upload/",
        versions: Set<InteropVersion> = Set(InteropVersion.all),
        resumable: Bool = true,
        limits: UploadLimits = UploadLimits(),
        progressInterval: Int64 = 1 << 20,
        headStatus: Int = 204
    ) {
        self.creationPath = creationPath
        self.resourcePathPrefix = resourcePathPrefix
        self.versions = versions
        self.resumable = resumable
        self.limits = limits
        self.progressInterval = progressInterval
        self.headStatus = headStatus
    }
}
