/// One committed mutation of the job store: what a change block yields and what the journal appends.
///
/// Replaying the same changes in the same order on the same starting store gives the same store and ledger
/// (`JobStore.replay`), which is how the journal recovers.
public enum JobChange: Hashable, Sendable, Codable {
    /// `createJob`: the new job, registered.
    case created(UploadJob)
    /// System: a transfer began (registered → pending; one more attempt).
    case started(JobID)
    /// System: the final response was 2xx (pending → succeeded).
    case succeeded(JobID, status: Int, headers: [HeaderField])
    /// System: the transfer failed (pending → failed).
    case failed(JobID, error: JobError, status: Int?, headers: [HeaderField])
    /// `retry`: failed → registered, with a new destination or (nil) the old one.
    case retried(JobID, destination: UploadDestination?)
    /// `acknowledge`: the succeeded or failed job leaves the store.
    case acknowledged(JobID)
    /// `cancel`: registered or pending → cancelled, acknowledged at once (the job leaves the store).
    case cancelled(JobID)
    /// A transfer event for the ledger; the job's state does not change.
    case recorded(JobID, JobEvent)

    /// The job the change concerns.
    public var jobID: JobID {
        switch self {
        case .created(let job): job.localID
        case .started(let id), .succeeded(let id, _, _), .failed(let id, _, _, _), .retried(let id, _),
            .acknowledged(let id), .cancelled(let id), .recorded(let id, _):
            id
        }
    }
}
