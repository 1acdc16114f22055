import Foundation
import Glibc
import Synchronization
import TLSKit

/// One upload's folder and state; every change to its files happens under its lock, so at most one writer
/// touches the data file and metadata writes never interleave.
///
/// ```
/// <store>/<id>/data          the bytes, appended in place
/// <store>/<id>/record.json   the UploadRecord, replaced atomically
/// ```
///
/// While an upload is open, its data file's size is its durable offset: `sync` is one fdatasync of the data (the
/// bytes and the file size), and `record.json` is rewritten only when the upload's state changes (created, length
/// fixed, a request ended, completed, cancelled). Recovery takes an open upload's offset from its data file,
/// which after a kill -9 holds every byte written in order (the page cache survives the process; on a power
/// loss, journalling file systems such as ext4 in ordered mode never expose blocks beyond the synced size with
/// other content). One fdatasync per progress point instead of three fsyncs and a rename is what keeps a 1 GiB
/// upload near the disk's speed.
final class UploadEntry: Sendable {
    static let dataName = "data"
    static let recordName = "record.json"

    let id: String
    let folder: String
    private let state: Mutex<State>

    /// The data file descriptor of the active writer and the generation that owns it.
    struct ActiveWriter {
        var generation: UInt64
        var fd: Int32
    }

    struct State {
        var record: UploadRecord
        /// The end of the bytes in the data file (at least `record.durableOffset`).
        var written: Int64
        var writer: ActiveWriter?
        var nextGeneration: UInt64 = 1
        /// The SHA-256 of the data's first `hashed` bytes, kept while bytes arrive in order from offset 0, so that
        /// completing needs no re-read; nil once a tail was cut or after a reopen (completion then re-reads).
        var digest: RunningDigest?
    }

    init(folder: String, record: UploadRecord) {
        self.id = record.id
        self.folder = folder
        self.state = Mutex(State(record: record, written: record.durableOffset))
    }

    var dataPath: String { folder + "/" + Self.dataName }
    var recordPath: String { folder + "/" + Self.recordName }

    /// The record as it is now.
    var record: UploadRecord {
        state.withLock { $0.record }
    }

    /// Applies `change` to a copy of the record, saves the copy durably, then makes it current: a failed save
    /// leaves the record as it was.
    func update(_ change: (inout UploadRecord) throws -> Void) throws -> UploadRecord {
        try state.withLock { state in try commit(&state, change) }
    }

    /// Fixes the length of an open upload; a different known length, or one below the bytes written, is
    /// `lengthMismatch`.
    func setLength(_ length: Int64) throws -> UploadRecord {
        try state.withLock { state in
            let written = state.written
            return try commit(&state) { record in
                try Self.checkOpen(record)
                guard record.length == nil || record.length == length, length >= written else {
                    throw UploadStoreError(
                        .lengthMismatch, path: recordPath,
                        "length \(length) for \(id): known \(record.length ?? -1), "
                            + "written \(written)")
                }
                record.length = length
            }
        }
    }

    /// Starts the single writer at `offset`, which must be the durable offset; cuts any unsynced tail first.
    func begin(at offset: Int64) throws -> UInt64 {
        try state.withLock { state in
            try Self.checkOpen(state.record)
            if state.writer != nil { throw UploadStoreError(.writerActive, path: folder, "\(id) has a writer") }
            guard offset == state.record.durableOffset else {
                throw UploadStoreError(
                    .offsetMismatch, path: folder, "append at \(offset), durable offset \(state.record.durableOffset)")
            }
            let fd = open(dataPath, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw UploadStoreError.system("open", path: dataPath) }
            guard ftruncate(fd, off_t(offset)) == 0 else {
                let failure = UploadStoreError.system("ftruncate", path: dataPath)
                close(fd)
                throw failure
            }
            let generation = state.nextGeneration
            state.nextGeneration += 1
            if offset == 0 { state.digest = RunningDigest() }
            if state.digest?.count != offset { state.digest = nil }
            state.written = offset
            state.writer = ActiveWriter(generation: generation, fd: fd)
            return generation
        }
    }

    /// Appends bytes for the writer `generation`.
    func write(_ bytes: UnsafeRawBufferPointer, generation: UInt64) throws {
        try state.withLock { state in
            let fd = try activeDescriptor(state, generation)
            let end = state.written + Int64(bytes.count)
            if let length = state.record.length, end > length {
                throw UploadStoreError(.lengthMismatch, path: dataPath, "write to \(end) passes length \(length)")
            }
            try StoreFiles.writeAll(bytes, to: fd, at: state.written, path: dataPath)
            state.digest?.update(bytes)
            state.written = end
        }
    }

    /// Cuts what the writer `generation` wrote past `offset` and makes the cut durable. Bytes already promised
    /// (below the durable offset) are never cut: that is `offsetMismatch`.
    func rewind(to offset: Int64, generation: UInt64) throws {
        try state.withLock { state in
            let fd = try activeDescriptor(state, generation)
            guard offset >= state.record.durableOffset, offset <= state.written else {
                throw UploadStoreError(
                    .offsetMismatch, path: dataPath,
                    "rewind to \(offset): durable \(state.record.durableOffset), written \(state.written)")
            }
            guard ftruncate(fd, off_t(offset)) == 0 else { throw UploadStoreError.system("ftruncate", path: dataPath) }
            guard fdatasync(fd) == 0 else { throw UploadStoreError.system("fdatasync", path: dataPath) }
            state.written = offset
            if state.digest?.count != offset { state.digest = nil }
        }
    }

    /// The digests with each of `algorithms` of every byte the writer `generation` wrote (synced or not).
    func digests(_ algorithms: [MessageDigest.Algorithm], generation: UInt64, chunkSize: Int) throws -> [[UInt8]] {
        try state.withLock { state in
            _ = try activeDescriptor(state, generation)
            // The running SHA-256 covers every byte written when they came in order from 0: no re-read.
            if algorithms == [.sha256], let running = state.digest, running.count == state.written {
                return [running.current()]
            }
            return try StoreFiles.digests(of: dataPath, length: state.written, chunkSize: chunkSize, algorithms)
        }
    }

    /// Makes the written bytes durable for the writer `generation`; returns the durable offset.
    func sync(generation: UInt64) throws -> Int64 {
        try state.withLock { state in
            _ = try activeDescriptor(state, generation)
            return try syncLocked(&state).durableOffset
        }
    }

    /// Syncs, saves the record, optionally completes (hashing the data), and ends the writer `generation`.
    func finish(generation: UInt64, complete: Bool, now: Double, hashChunkSize: Int) throws -> UploadRecord {
        try state.withLock { state in
            let fd = try activeDescriptor(state, generation)
            var record = try syncLocked(&state)
            if complete {
                if let length = record.length, length != record.durableOffset {
                    throw UploadStoreError(
                        .lengthMismatch, path: dataPath, "complete at \(record.durableOffset), length \(length)")
                }
                let running = state.digest
                state.digest = nil
                let digest =
                    try running.flatMap { $0.count == record.durableOffset ? $0.hex() : nil }
                    ?? StoreFiles.sha256(of: dataPath, length: record.durableOffset, chunkSize: hashChunkSize)
                record = try commit(&state) { record in
                    record.length = record.durableOffset
                    record.complete = true
                    record.completedAt = now
                    record.sha256 = digest
                }
            } else {
                record = try commit(&state) { _ in }
            }
            close(fd)
            state.writer = nil
            return record
        }
    }

    /// Ends the active writer, if any, after making what it wrote durable; returns the durable offset.
    func abortWriter() throws -> Int64 {
        try state.withLock { state in
            guard let writer = state.writer else { return state.record.durableOffset }
            defer {
                close(writer.fd)
                state.writer = nil
            }
            _ = try syncLocked(&state)
            return try commit(&state) { _ in }.durableOffset
        }
    }

    /// Ends the writer `generation` without syncing (its handle went away); its unsynced bytes are not promised.
    func release(generation: UInt64) {
        state.withLock { state in
            guard let writer = state.writer, writer.generation == generation else { return }
            close(writer.fd)
            state.writer = nil
        }
    }

    /// Ends any writer without syncing (its upload is being removed).
    func closeWriter() {
        state.withLock { state in
            guard let writer = state.writer else { return }
            close(writer.fd)
            state.writer = nil
        }
    }

    /// Ends any writer of an open upload, removes the data and keeps a cancelled record as a tombstone.
    func cancel(now: Double) throws -> UploadRecord {
        try state.withLock { state in
            try Self.checkOpen(state.record)
            if let writer = state.writer {
                close(writer.fd)
                state.writer = nil
            }
            let record = try commit(&state) { record in
                record.cancelled = true
                record.cancelledAt = now
            }
            try StoreFiles.remove(dataPath)
            try StoreFiles.syncFolder(folder)
            state.written = 0
            state.digest = nil
            return record
        }
    }

    static func checkOpen(_ record: UploadRecord) throws {
        if record.cancelled { throw UploadStoreError(.cancelled, "\(record.id) was cancelled") }
        if record.complete { throw UploadStoreError(.alreadyComplete, "\(record.id) is complete") }
    }

    private func activeDescriptor(_ state: State, _ generation: UInt64) throws -> Int32 {
        guard let writer = state.writer, writer.generation == generation else {
            throw UploadStoreError(.writerAborted, path: dataPath, "the writer for \(id) was ended")
        }
        return writer.fd
    }

    /// fdatasyncs the data file when bytes were written since the last sync (its size is then the durable
    /// offset, see the type's comment); the record on disk catches up at the next state change.
    private func syncLocked(_ state: inout State) throws -> UploadRecord {
        guard let writer = state.writer, state.written > state.record.durableOffset else { return state.record }
        guard fdatasync(writer.fd) == 0 else { throw UploadStoreError.system("fdatasync", path: dataPath) }
        state.record.durableOffset = state.written
        return state.record
    }

    private func commit(_ state: inout State, _ change: (inout UploadRecord) throws -> Void) throws -> UploadRecord {
        var record = state.record
        try change(&record)
        try Self.save(record, to: recordPath)
        state.record = record
        return record
    }

    /// Writes `record` to `path` atomically and durably.
    static func save(_ record: UploadRecord, to path: String, synced: Bool = true) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do {
            data = try encoder.encode(record)
        } catch {
            throw UploadStoreError(.io, path: path, "cannot encode the record of \(record.id): \(error)")
        }
        try StoreFiles.writeAtomically([UInt8](data), to: path, synced: synced)
    }
}

/// A SHA-256 fed as bytes are written, with the count it covers. Only ever used under its entry's lock, which is
/// what makes sharing the digest object safe.
struct RunningDigest: @unchecked Sendable {
    private let digest = MessageDigest(.sha256)
    private(set) var count: Int64 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        digest.update(bytes)
        count += Int64(bytes.count)
    }

    func hex() -> String {
        MessageDigest.hexString(digest.finalize())
    }

    /// The digest so far, the running one going on.
    func current() -> [UInt8] {
        digest.current()
    }
}
