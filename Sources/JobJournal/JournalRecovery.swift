/// What opening a journal found and did: the report `JobJournal.recovery` keeps.
public struct JournalRecovery: Hashable, Sendable {
    /// The bytes dropped from the end of the log: a record whose write never finished (a crash mid-commit),
    /// or a last record whose payload fails its CRC. Such a commit never returned, so nothing committed is lost.
    public struct DroppedTail: Hashable, Sendable {
        /// Where the dropped bytes began (the log was truncated to this length).
        public var offset: Int64
        /// How many bytes were dropped.
        public var length: Int64
        /// Why, e.g. `a record of 230 bytes ends past the end of the file`.
        public var reason: String
    }

    /// The last commit the snapshot holds (0: no snapshot).
    public var snapshotSequence: UInt64 = 0
    /// Commits replayed from the log on top of the snapshot.
    public var replayedCommits = 0
    /// Log records already in the snapshot (a compaction that stopped before it emptied the log), skipped.
    public var skippedCommits = 0
    /// The torn tail, when there was one.
    public var droppedTail: DroppedTail?
    /// A snapshot's temporary file left by a compaction that stopped before its rename, removed (it never
    /// replaced the snapshot, so it held nothing the snapshot and log lack).
    public var removedTemporarySnapshot = false
}
