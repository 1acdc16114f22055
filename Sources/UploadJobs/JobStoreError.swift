/// A change the job store refused: a stable `code`, the job concerned (when there is one) and a human `detail`
/// naming the job and the states involved.
///
/// Compare on `code`; the `detail` is for people. A refused change leaves the store (and its change block)
/// exactly as it was.
public struct JobStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable identity of a refusal.
    public enum Code: String, Sendable, Codable {
        /// Creating or retrying would pass the in-flight limit (PhotoKit `PHPhotosError.limitExceeded`).
        case limitExceeded
        /// The job has used all its retries; it can only be acknowledged.
        case retryLimitReached
        /// No job with that id is in the store (never created, acknowledged, or cancelled).
        case notFound
        /// The job's state does not allow the change (e.g. cancelling a succeeded job).
        case invalidTransition
        /// A final response contradicts the outcome (a non-2xx success, a 2xx failure, a status outside 100…599).
        case invalidResponse
        /// An upload job without a destination, or a destination for a download-only job.
        case invalidDestination
        /// A transfer event with impossible values (a negative offset or length, an empty resource id).
        case invalidEvent
        /// A replayed change does not fit the store (e.g. a created id out of sequence): the journal is damaged.
        case replayMismatch
    }

    public var code: Code
    /// The job concerned, when there is one.
    public var job: JobID?
    public var detail: String

    public init(_ code: Code, job: JobID? = nil, _ detail: String) {
        self.code = code
        self.job = job
        self.detail = detail
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}
