/// How a `JobJournal` bounds its files.
public struct JobJournalConfiguration: Hashable, Sendable {
    /// Compact (write a snapshot, empty the log) before a commit once the log is larger than this many bytes
    /// and larger than the last snapshot (so a large ledger is not rewritten after every few commits).
    /// Default 4 MiB.
    public var compactionThreshold: Int64
    /// The largest record payload written or read; a larger length in a record header is damage. Default 16 MiB.
    public var maxRecordBytes: Int

    public init(compactionThreshold: Int64 = 4 << 20, maxRecordBytes: Int = 16 << 20) {
        self.compactionThreshold = compactionThreshold
        self.maxRecordBytes = maxRecordBytes
    }
}
