/// The handle a change block works through (PhotoKit `PHAssetResourceUploadJobChangeRequest` inside
/// `performChanges`): the extension's mutations, the system's transitions and ledger records.
///
/// Every call checks the change against the block's view of the store (which includes the block's earlier
/// changes) and either makes it or throws a `JobStoreError` and changes nothing, so a caller may catch
/// `limitExceeded` inside the block and keep what it did before. The changes land in the store only when the
/// whole block returns; a block that throws lands none.
public struct JobChangeBlock {
    private(set) var table: JobTable
    /// The limits in force.
    public let configuration: JobStoreConfiguration
    /// The changes made so far, in order.
    public private(set) var changes: [JobChange] = []

    init(table: JobTable, configuration: JobStoreConfiguration) {
        self.table = table
        self.configuration = configuration
    }

    /// The held job `id` as the block sees it, or nil.
    public func job(_ id: JobID) -> UploadJob? {
        table.jobs[id]
    }

    /// Jobs for `action` in creation order, as the block sees them.
    public func fetch(_ action: JobAction) -> [UploadJob] {
        table.fetch(action, retryLimit: configuration.retryLimit)
    }

    /// Slots in use: every held job (registered, pending, succeeded, failed).
    public var inFlightCount: Int {
        table.jobs.count
    }

    /// Creates a registered job for `assetID`; throws `limitExceeded` when every slot is in use.
    ///
    /// Upload jobs need a destination; download-only jobs take none (`invalidDestination` otherwise).
    @discardableResult
    public mutating func createJob(
        assetID: String, destination: UploadDestination?, type: JobType = .upload
    ) throws(JobStoreError) -> JobID {
        let id = JobID(table.nextNumber)
        try make(.created(UploadJob(localID: id, assetID: assetID, type: type, destination: destination)))
        return id
    }

    /// Retries a failed job with retries left, keeping (nil) or replacing its destination.
    ///
    /// Counts toward the retry limit (`retryLimitReached` when used up) and toward the in-flight limit: the job
    /// keeps the slot it holds, and the retry is refused with `limitExceeded` when the other held jobs already
    /// fill every slot (which happens only after the limit was lowered below the number of held jobs).
    public mutating func retry(_ id: JobID, destination: UploadDestination? = nil) throws(JobStoreError) {
        try make(.retried(id, destination: destination))
    }

    /// Removes a succeeded or failed job from the store, freeing its slot; the ledger keeps its history.
    public mutating func acknowledge(_ id: JobID) throws(JobStoreError) {
        try make(.acknowledged(id))
    }

    /// Cancels a registered or pending job; it is acknowledged at once and frees its slot.
    public mutating func cancel(_ id: JobID) throws(JobStoreError) {
        try make(.cancelled(id))
    }

    /// System: a transfer of a registered job begins (→ pending; one more attempt).
    public mutating func start(_ id: JobID) throws(JobStoreError) {
        try make(.started(id))
    }

    /// System: a pending job's final response was 2xx; its header fields are kept with lower-cased names.
    public mutating func succeed(_ id: JobID, status: Int, headers: [HeaderField] = []) throws(JobStoreError) {
        try make(.succeeded(id, status: status, headers: headers.map(\.lowercased)))
    }

    /// System: a pending job failed with `error`; a final response's status (never 2xx) and header fields are
    /// kept when there was one.
    public mutating func fail(
        _ id: JobID, error: JobError, status: Int? = nil, headers: [HeaderField] = []
    ) throws(JobStoreError) {
        try make(.failed(id, error: error, status: status, headers: headers.map(\.lowercased)))
    }

    /// Records a transfer event in the job's ledger history.
    public mutating func record(_ event: JobEvent, job id: JobID) throws(JobStoreError) {
        try make(.recorded(id, event))
    }

    private mutating func make(_ change: JobChange) throws(JobStoreError) {
        try table.apply(change, limits: configuration)
        changes.append(change)
    }
}
