/// Why a job failed, named after the URL error codes the system reports (`spec/upload-jobs.md`, model choice).
public enum JobError: String, Sendable, Codable, CaseIterable {
    /// No response in time (transient).
    case timedOut
    /// The connection broke mid-transfer and could not be resumed (transient).
    case networkConnectionLost
    /// No connection could be made (transient).
    case cannotConnectToHost
    /// The server answered 401 or 403 (permanent for the default policy; a refreshed token may help).
    case userAuthenticationRequired
    /// Any other non-2xx final status, or a malformed response (permanent for the default policy).
    case badServerResponse
    /// The transfer was cancelled.
    case cancelled

    /// Whether the seed's default policy retries a job that failed with this error.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .networkConnectionLost, .cannotConnectToHost: true
        case .userAuthenticationRequired, .badServerResponse, .cancelled: false
        }
    }
}
