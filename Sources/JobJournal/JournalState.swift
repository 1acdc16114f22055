import Foundation
import SquallNet
import UploadJobs

/// What a `JobJournal` guards with its mutex: the store, the open files and the log's bookkeeping.
struct JournalState {
    var store: JobStore
    /// Nil once closed.
    var lock: FolderLock?
    /// Nil once closed, or after a failed write or fsync.
    var log: JournalFile?
    /// The log's length: the end of its last committed record.
    var logSize: Int64 = 0
    /// The last committed sequence number.
    var sequence: UInt64 = 0
    /// The size of the last snapshot written or read.
    var snapshotSize: Int64 = 0

    init(store: JobStore, lock: FolderLock) {
        self.store = store
        self.lock = lock
    }

    /// Replays one log record found at `offset` on open: skipped when the snapshot holds it, else it must be
    /// the next sequence and fit the store.
    mutating func replay(
        _ payload: [UInt8], at offset: Int64, path: String, recovery: inout JournalRecovery
    ) throws(JobJournalError) {
        let commit = try JournalLoader.decode(JournalCommit.self, payload, path: path, offset: offset)
        if commit.sequence <= recovery.snapshotSequence && recovery.replayedCommits == 0 {
            recovery.skippedCommits += 1
            return
        }
        guard commit.sequence == sequence + 1 else {
            throw .corrupt(path, at: offset, "commit \(commit.sequence) follows commit \(sequence)")
        }
        do {
            try store.replay(commit.changes, at: commit.time)
        } catch {
            throw .corrupt(path, at: offset, "commit \(commit.sequence) does not fit the store: \(error)")
        }
        sequence = commit.sequence
        recovery.replayedCommits += 1
    }

    /// Appends `commit` to the log and fsyncs it. On failure it cuts the log back, closes the journal (the file's
    /// durable state is unknown after a failed fsync) and rethrows.
    mutating func append(_ commit: JournalCommit, to log: JournalFile, maxRecordBytes: Int) throws(JobJournalError) {
        let payload = try Self.encode(commit)
        guard payload.count <= maxRecordBytes else {
            throw JobJournalError(
                .recordTooLarge, path: log.path,
                "commit \(commit.sequence) would be \(payload.count) bytes, more than \(maxRecordBytes)")
        }
        let frame = JournalFrame.encode(payload)
        do {
            try log.write(frame, at: logSize)
            try log.sync()
        } catch {
            try? log.truncate(to: logSize)
            self.log = nil
            throw error
        }
        logSize += Int64(frame.count)
        sequence = commit.sequence
    }

    /// The JSON payload of a record.
    static func encode(_ value: some Encodable) throws(JobJournalError) -> [UInt8] {
        do {
            return [UInt8](try JSONEncoder().encode(value))
        } catch {
            throw JobJournalError(.io, "cannot encode a journal record: \(error)")
        }
    }
}
