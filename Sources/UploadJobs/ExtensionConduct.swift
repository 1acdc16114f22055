/// Something an app's extension did that the job store cannot see but a verdict needs: recorded by the host that
/// runs the extension (SquallPhotos) in the journal folder, read by the harness, judged by the oracle.
///
/// JSON Lines, one object each: `{"conduct": "acknowledged-without-reading-headers", "job": "job-3",
/// "detail": "x-server-resource-id r-17"}`.
public struct ExtensionConduct: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A succeeded upload job was acknowledged in an invocation that never read its `responseHeaderFields`:
        /// what the server answered with (its `x-server-resource-id`) is gone with the job.
        case acknowledgedWithoutReadingHeaders = "acknowledged-without-reading-headers"
        /// A change block begun after `willTerminate()` had returned committed, in the invocation it was meant to stop.
        case changedAfterWillTerminate = "changed-after-will-terminate"
        /// A job that failed with `userAuthenticationRequired` (the server refused its token) was retried with the
        /// same `Authorization` (no new destination, or one carrying the same value): the server refuses it again.
        case retriedAuthFailureWithSameAuthorization = "retried-401-with-same-authorization"
    }

    public var conduct: Kind
    /// The job the conduct concerns (for a change block, the first job it changed).
    public var job: JobID?
    /// What happened, in words (`x-server-resource-id r-17`, `created job-9`).
    public var detail: String

    public init(_ conduct: Kind, job: JobID?, detail: String) {
        self.conduct = conduct
        self.job = job
        self.detail = detail
    }

    /// The name of the file in the journal folder.
    public static let fileName = "extension-conduct.jsonl"
}
