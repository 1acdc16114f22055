import UploadJobs

/// A log record's payload: one committed change block.
struct JournalCommit: Codable {
    /// 1 for the journal's first commit, then one more for each; never reset by compaction.
    var sequence: UInt64
    var time: JobTime
    var changes: [JobChange]
}

/// The snapshot's payload: the whole store (jobs, counters, ledger) after commit `sequence`.
struct JournalSnapshot: Codable {
    var sequence: UInt64
    var store: JobStore
}
