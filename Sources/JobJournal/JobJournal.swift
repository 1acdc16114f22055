import Foundation
import Glibc
import SquallNet
import Synchronization
import UploadJobs

/// A `JobStore` made durable in a folder: every committed change block is on disk before `performChanges`
/// returns, and reopening the folder gives back exactly the committed store and ledger.
///
/// ```
/// folder/
///   .lock          flock: one open journal per folder (another process or another open fails: journalInUse)
///   snapshot       one framed record: the whole store after commit N (written to snapshot.tmp, fsync,
///                  rename, fsync of the folder)
///   journal.log    framed records, one per committed change block, sequences N+1, N+2, …
/// ```
/// A commit: plan the change block against the store (nothing changes yet), append its record (`JournalFrame`:
/// length, CRC32, header check, JSON), fsync, then apply it in memory. A kill -9 before the fsync returns leaves
/// at most a torn last record, which opening drops (truncating the log) and reports in `recovery`; any other
/// damage fails the open with `corrupt`, naming the file and offset, and changes nothing.
/// Compaction (before a commit, once the log outgrows `compactionThreshold` and the last snapshot): write the
/// snapshot atomically, then empty the log. A crash between the two leaves log records the snapshot already
/// holds; opening skips them by sequence number.
///
/// Thread-safe: calls are serialized by a mutex. A change block runs under it, so it must not call the journal.
/// A failed write or fsync closes the journal (its on-disk state is then only known after reopening).
public final class JobJournal: Sendable {
    public static let logFileName = "journal.log"
    public static let snapshotFileName = "snapshot"

    /// The journal's folder.
    public let folder: String
    /// What opening found: snapshot, replayed commits, the torn tail dropped.
    public let recovery: JournalRecovery
    private let configuration: JobJournalConfiguration
    private let state: Mutex<JournalState>

    /// Opens (creating when needed) the journal in `folder`, recovers its store, and holds the folder's lock
    /// until `close` (or deinit). `store` sets the limits in force, whatever limits the journal was written with.
    public init(
        folder: String, store storeConfiguration: JobStoreConfiguration = JobStoreConfiguration(),
        configuration: JobJournalConfiguration = JobJournalConfiguration()
    ) throws(JobJournalError) {
        try JournalFolder.make(folder)
        let lock = try JournalLock.take(folder)
        var recovery = JournalRecovery()
        let snapshotPath = folder + "/" + Self.snapshotFileName
        if JournalFolder.exists(snapshotPath + ".tmp") {
            try JournalFolder.remove(snapshotPath + ".tmp")
            recovery.removedTemporarySnapshot = true
        }
        var state = JournalState(store: JobStore(configuration: storeConfiguration), lock: lock)
        if let (snapshot, size) = try JournalLoader.snapshot(at: snapshotPath) {
            state.store = snapshot.store
            state.store.configuration = storeConfiguration
            state.sequence = snapshot.sequence
            state.snapshotSize = size
            recovery.snapshotSequence = snapshot.sequence
        }
        let log = try JournalFile(folder + "/" + Self.logFileName, flags: O_RDWR | O_CREAT)
        let (end, tail) = try JournalLoader.scan(log, maxRecordBytes: configuration.maxRecordBytes) {
            (offset, payload) throws(JobJournalError) in
            try state.replay(payload, at: offset, path: log.path, recovery: &recovery)
        }
        if let tail {
            try log.truncate(to: end)
            recovery.droppedTail = tail
        }
        try JournalFolder.sync(folder)
        state.log = log
        state.logSize = end
        self.folder = folder
        self.recovery = recovery
        self.configuration = configuration
        self.state = Mutex(state)
    }

    /// The store as of the last commit.
    public var store: JobStore {
        state.withLock { $0.store }
    }

    /// The ledger as of the last commit.
    public var ledger: JobLedger {
        state.withLock { $0.store.ledger }
    }

    /// The sequence number of the last commit (0: none yet); compaction does not reset it.
    public var sequence: UInt64 {
        state.withLock { $0.sequence }
    }

    /// Runs `body` as one atomic change block at `now` (see `JobStore.performChanges`) and returns the changes
    /// once they are durable. When `body` throws, or the write fails, nothing is committed and the error is
    /// rethrown. A block that changes nothing writes nothing.
    @discardableResult
    public func performChanges(at now: JobTime, _ body: (inout JobChangeBlock) throws -> Void) throws -> [JobChange] {
        try state.withLock { state in
            try prepareCommit(&state)
            let changes = try state.store.plannedChanges(body)
            if !changes.isEmpty { try commit(changes, at: now, to: &state) }
            return changes
        }
    }

    /// Records one transfer event durably in its own change block.
    public func record(_ event: JobEvent, job id: JobID, at now: JobTime) throws {
        try performChanges(at: now) { try $0.record(event, job: id) }
    }

    /// Writes a snapshot of the store now and empties the log.
    public func compact() throws(JobJournalError) {
        try state.withLock { (state) throws(JobJournalError) in
            guard let log = state.log else { throw JobJournalError(.closed, path: folder, "\(folder) is closed") }
            try compact(&state, log: log)
        }
    }

    /// Closes the files and releases the folder's lock; later calls throw `closed`.
    public func close() {
        state.withLock { state in
            state.log = nil
            state.lock = nil
        }
    }

    /// Checks that the journal is open, and compacts it when the log has outgrown its bound.
    private func prepareCommit(_ state: inout JournalState) throws(JobJournalError) {
        guard let log = state.log else { throw JobJournalError(.closed, path: folder, "\(folder) is closed") }
        if state.logSize > max(configuration.compactionThreshold, state.snapshotSize) {
            try compact(&state, log: log)
        }
    }

    /// Appends the planned `changes` durably, then applies them to the store.
    private func commit(_ changes: [JobChange], at now: JobTime, to state: inout JournalState) throws {
        guard let log = state.log else { throw JobJournalError(.closed, path: folder, "\(folder) is closed") }
        try state.append(
            JournalCommit(sequence: state.sequence + 1, time: now, changes: changes), to: log,
            maxRecordBytes: configuration.maxRecordBytes)
        try state.store.replay(changes, at: now)
    }

    private func compact(_ state: inout JournalState, log: JournalFile) throws(JobJournalError) {
        let payload = try JournalState.encode(JournalSnapshot(sequence: state.sequence, store: state.store))
        let frame = JournalFrame.encode(payload)
        try JournalFolder.writeAtomically(frame, to: folder + "/" + Self.snapshotFileName)
        state.snapshotSize = Int64(frame.count)
        do {
            try log.truncate(to: 0)
        } catch {
            state.log = nil
            throw error
        }
        state.logSize = 0
    }
}
