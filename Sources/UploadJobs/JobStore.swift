/// The system's job store (PhotoKit's upload job database): held jobs, atomic change blocks, the in-flight and
/// retry limits, and the ledger of every job's history.
///
/// A value type: all state changes go through `performChanges` (or `replay`, for the journal). Times are
/// passed in; nothing here reads a clock or touches a file (`JobJournal` makes a store durable).
///
/// **In-flight slots (model choice).** A job holds one slot from `createJob` until it leaves the store: while
/// registered, pending, succeeded or failed. `acknowledge` frees it; `cancel` frees it at once (cancelled jobs
/// are acknowledged automatically and hold none). A failed job keeps its slot until acknowledged, so a retry
/// re-admits a job that already holds one: it counts toward the limit in that the job goes on holding its
/// slot, and it is refused with `limitExceeded` when the *other* held jobs fill every slot (possible only when
/// the limit was lowered below the number of held jobs, e.g. a journal reopened with a smaller limit).
/// Creation is refused when `inFlightCount == inFlightLimit`. `peakInFlight` is the most slots ever in use.
///
/// **Retries.** A job can be started at most `retryLimit + 1` times: once, then once per retry.
///
/// **Duplicates (model choice).** The store does not refuse a second job for an asset that already has one:
/// PhotoKit's sample cancels redundant jobs itself, so the extension policy owns that check.
public struct JobStore: Hashable, Sendable, Codable {
    /// The limits in force; they may change between change blocks (changes already made stay).
    public var configuration: JobStoreConfiguration
    private(set) var table = JobTable()
    /// Every job's history, acknowledged jobs included.
    public private(set) var ledger = JobLedger()

    public init(configuration: JobStoreConfiguration = JobStoreConfiguration()) {
        self.configuration = configuration
    }

    /// The held job `id`, or nil (never created, acknowledged or cancelled).
    public func job(_ id: JobID) -> UploadJob? {
        table.jobs[id]
    }

    /// Every held job in creation order.
    public var jobs: [UploadJob] {
        table.jobs.values.sorted { $0.localID < $1.localID }
    }

    /// Held jobs for `action` in creation order (PhotoKit `fetchJobs(action:options:)`).
    public func fetch(_ action: JobAction) -> [UploadJob] {
        table.fetch(action, retryLimit: configuration.retryLimit)
    }

    /// Slots in use: every held job.
    public var inFlightCount: Int {
        table.jobs.count
    }

    /// The most slots in use at once since the store was created.
    public var peakInFlight: Int {
        table.peakInFlight
    }

    /// Runs `body` as one atomic change block at time `now` and returns the changes it committed, in order.
    ///
    /// All of the block's changes land or none do: when `body` throws, the store is left as it was and the
    /// error is rethrown. Errors `body` catches itself (e.g. `limitExceeded` from `createJob`) roll back only
    /// the call that threw.
    @discardableResult
    public mutating func performChanges(
        at now: JobTime, _ body: (inout JobChangeBlock) throws -> Void
    ) throws -> [JobChange] {
        let changes = try plannedChanges(body)
        try replay(changes, at: now)
        return changes
    }

    /// The changes `body` would commit, without committing them: a journal makes them durable first, then
    /// applies them with `replay`.
    public func plannedChanges(_ body: (inout JobChangeBlock) throws -> Void) throws -> [JobChange] {
        var block = JobChangeBlock(table: table, configuration: configuration)
        try body(&block)
        return block.changes
    }

    /// Records one transfer event in its own change block and returns the committed change.
    @discardableResult
    public mutating func record(_ event: JobEvent, job id: JobID, at now: JobTime) throws -> JobChange {
        try performChanges(at: now) { try $0.record(event, job: id) }[0]
    }

    /// Applies changes committed earlier (by a journal) as one block at `time`, checking each one's state rules
    /// but not the limits; throws and changes nothing when one does not fit.
    public mutating func replay(_ changes: [JobChange], at time: JobTime) throws(JobStoreError) {
        var replayed = table
        for change in changes {
            try replayed.apply(change, limits: nil)
        }
        table = replayed
        ledger.apply(changes, at: time)
    }
}
