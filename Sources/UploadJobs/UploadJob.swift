/// One job in the store: one asset resource to one destination (PhotoKit `PHAssetResourceUploadJob`).
public struct UploadJob: Hashable, Sendable, Codable {
    /// The local identifier, unique for the store's whole life.
    public let localID: JobID
    /// What is uploaded: the file's (asset resource's) identity.
    public let assetID: String
    public let type: JobType
    public internal(set) var state: JobState
    /// Where it is uploaded; nil exactly for `downloadOnly` jobs.
    public internal(set) var destination: UploadDestination?
    /// Set for `failed` jobs.
    public internal(set) var error: JobError?
    /// The final response's status, when there was one (succeeded jobs always; failed ones may have none).
    public internal(set) var httpStatus: Int?
    /// The final response's header fields, names lower-cased, for succeeded and failed jobs.
    public internal(set) var responseHeaderFields: [HeaderField]
    /// Retries used so far (at most the store's retry limit).
    public internal(set) var retryCount: Int
    /// Transfers begun so far (`start` calls): 1 + retries at most. Automatic resumes are not attempts.
    public internal(set) var attemptCount: Int

    /// A job as `createJob` makes it: registered, no attempts yet.
    init(localID: JobID, assetID: String, type: JobType, destination: UploadDestination?) {
        self.localID = localID
        self.assetID = assetID
        self.type = type
        self.state = .registered
        self.destination = destination
        self.error = nil
        self.httpStatus = nil
        self.responseHeaderFields = []
        self.retryCount = 0
        self.attemptCount = 0
    }

    /// The value of response header `name` (lower-case), e.g. `x-server-resource-id`.
    public func responseHeader(_ name: String) -> String? {
        responseHeaderFields.value(named: name)
    }
}
