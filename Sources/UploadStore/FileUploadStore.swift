import Glibc
import SquallNet
import Synchronization

/// The reference server's upload store: one folder per upload holding its data and its `UploadRecord`.
///
/// Thread-safe. An offset is made durable (fdatasync of the data file, whose size is an open upload's offset;
/// metadata is written atomically and fsynced on state changes) before `UploadWriter.sync` returns it, so a
/// kill -9 at any moment followed by a reopen loses no reported byte and leaves every incomplete upload
/// resumable. Bodies are streamed: nothing holds a whole upload in memory.
///
/// Each upload has at most one writer. A new request for an upload ends the earlier one first with
/// `abortWriter`; the old writer's next call then throws `writerAborted`.
public final class FileUploadStore: Sendable {
    public let configuration: UploadStoreConfiguration
    /// The store's folder (the configured one, or the fresh temporary folder made for it).
    public let directory: String
    /// What opening the store found.
    public let recovery: RecoveryReport
    private let state: Mutex<State>
    private let lock: FolderLock

    private struct IdempotencyScope: Hashable {
        var principal: String?
        var key: String
    }

    private struct State {
        var entries: [String: UploadEntry]
        var idempotent: [IdempotencyScope: String] = [:]
    }

    /// Opens (and recovers) the store in `configuration.directory`, creating the folder if needed. The folder
    /// stays locked while the store exists: a second open store on it throws `storeInUse`.
    public init(configuration: UploadStoreConfiguration = UploadStoreConfiguration()) throws {
        let directory = try configuration.directory ?? StoreFiles.makeTemporaryDirectory()
        try StoreFiles.makeDirectory(directory)
        let lock = try StoreLock.take(directory)
        let (entries, report) = try StoreRecovery.load(
            directory, mode: .recover)
        var state = State(entries: entries)
        for entry in entries.values {
            let record = entry.record
            if let key = record.idempotencyKey, !record.cancelled {
                state.idempotent[IdempotencyScope(principal: record.principal, key: key)] = record.id
            }
        }
        self.configuration = configuration
        self.directory = directory
        self.recovery = report
        self.state = Mutex(state)
        self.lock = lock
    }

    /// Creates an upload, or returns the one an earlier creation with the same principal and idempotency key
    /// made (complete or not; the caller replays its `finalResponse` when it is complete). Creations hold the
    /// store's lock while their files are made durable, so two with one key cannot both create.
    ///
    /// With `durable` false the new upload's files are made but not synced: they survive the process (a kill -9),
    /// not the machine, until `makeDurable(_:)`. The server announces the upload in between, so that its 104 waits
    /// for no fsync; a machine crash there loses the upload (a HEAD then gets 404, and the client starts over).
    public func create(_ creation: UploadCreation, durable: Bool = true) throws -> CreateOutcome {
        try state.withLock { state in
            let scope = creation.idempotencyKey.map { IdempotencyScope(principal: creation.principal, key: $0) }
            if let scope, let id = state.idempotent[scope], let existing = state.entries[id] {
                return .existing(existing.record)
            }
            let id = creation.id ?? UploadID.generate()
            guard UploadID.isValid(id), state.entries[id] == nil, StoreFiles.size(directory + "/" + id) == nil else {
                throw UploadStoreError(.invalidID, path: directory + "/" + id, "\(id) is not a free upload id")
            }
            let record = UploadRecord(
                id: id, principal: creation.principal, idempotencyKey: creation.idempotencyKey,
                interopVersion: creation.interopVersion, length: creation.length, createdAt: configuration.clock())
            let entry = try makeEntry(record, synced: durable)
            state.entries[id] = entry
            if let scope { state.idempotent[scope] = id }
            return .created(record)
        }
    }

    /// The record of `id` whatever its principal (introspection), or `nil`.
    public func record(_ id: String) -> UploadRecord? {
        entry(id)?.record
    }

    /// The record of `id` if it belongs to `principal` (`nil` matches only anonymous uploads); another
    /// principal's upload is `nil`, as if it did not exist.
    public func record(_ id: String, for principal: String?) -> UploadRecord? {
        guard let record = record(id), record.principal == principal else { return nil }
        return record
    }

    /// Every upload (tombstones included), oldest first.
    public func list() -> [UploadRecord] {
        let entries = state.withLock { Array($0.entries.values) }
        return entries.map(\.record).sorted(by: UploadRecord.creationOrder)
    }

    /// Starts the single writer of `id` at `offset`, which must be the durable offset (`offsetMismatch`).
    /// Throws `writerActive` while an earlier writer is not ended: call `abortWriter` first.
    public func beginAppend(_ id: String, for principal: String?, at offset: Int64) throws -> UploadWriter {
        let entry = try owned(id, by: principal)
        let generation = try entry.begin(at: offset)
        return UploadWriter(entry: entry, generation: generation, configuration: configuration)
    }

    /// Ends the writer of `id`, if any, after making what it wrote durable; returns the durable offset.
    @discardableResult
    public func abortWriter(_ id: String) throws -> Int64 {
        guard let entry = entry(id) else { throw notFound(id) }
        return try entry.abortWriter()
    }

    /// Sets the length of an open upload once it is known; a different known length, or one below the bytes
    /// already written, is `lengthMismatch`.
    public func setLength(_ id: String, for principal: String?, to length: Int64) throws -> UploadRecord {
        try owned(id, by: principal).setLength(length)
    }

    /// Keeps the final response (and the resource id it created) of a completed upload for idempotent replay.
    public func setFinalResponse(
        _ id: String, _ response: StoredResponse, serverResourceId: String? = nil
    ) throws -> UploadRecord {
        guard let entry = entry(id) else { throw notFound(id) }
        return try entry.update { record in
            record.finalResponse = response
            record.serverResourceId = serverResourceId ?? record.serverResourceId
        }
    }

    /// Cancels `id`: ends its writer, removes its data, and keeps a tombstone record (`cancelled`).
    public func cancel(_ id: String, for principal: String?) throws -> UploadRecord {
        let record = try owned(id, by: principal).cancel(now: configuration.clock())
        state.withLock { state in
            if let key = record.idempotencyKey {
                state.idempotent[IdempotencyScope(principal: record.principal, key: key)] = nil
            }
        }
        return record
    }

    /// Removes `id` and its files entirely. It leaves the index first, so concurrent requests see `notFound`;
    /// the folder is renamed before it is removed, so a crash never leaves half an upload behind.
    public func delete(_ id: String) throws {
        guard try delete([id]) == [id] else { throw notFound(id) }
    }

    /// Removes the uploads of `ids` that are in the store, as `delete(_:)` does one, with a single sync of the store's
    /// folder for all of them: a sweep of hundreds of uploads under heavy writes costs one journal commit, not one
    /// each. Returns the ids removed; ids not in the store are skipped (a concurrent sweep removed them).
    @discardableResult
    public func delete(_ ids: [String]) throws -> [String] {
        let entries = state.withLock { state in
            ids.compactMap { id -> UploadEntry? in
                guard let entry = state.entries.removeValue(forKey: id) else { return nil }
                let record = entry.record
                if let key = record.idempotencyKey {
                    let scope = IdempotencyScope(principal: record.principal, key: key)
                    if state.idempotent[scope] == id { state.idempotent[scope] = nil }
                }
                return entry
            }
        }
        guard !entries.isEmpty else { return [] }
        for entry in entries {
            entry.closeWriter()
            let removing = entry.folder + StoreRecovery.removingSuffix
            guard rename(entry.folder, removing) == 0 else {
                throw UploadStoreError.system("rename", path: entry.folder)
            }
        }
        try StoreFiles.syncFolder(directory)
        for entry in entries { try StoreFiles.remove(entry.folder + StoreRecovery.removingSuffix) }
        return entries.map(\.record.id)
    }

    /// Removes completed uploads and cancelled tombstones that ended more than `age` seconds before `now`;
    /// returns their ids. Open uploads are never removed.
    @discardableResult
    public func removeCompleted(olderThan age: Double, now: Double) throws -> [String] {
        let expired = list().filter { record in
            guard let ended = record.completedAt ?? record.cancelledAt else { return false }
            return !record.isOpen && ended < now - age
        }
        return try delete(expired.map(\.id))
    }

    /// `removeCompleted` with the configured retention and the configured clock.
    @discardableResult
    public func removeExpired() throws -> [String] {
        try removeCompleted(olderThan: configuration.completedRetention, now: configuration.clock())
    }

    /// Groups of two or more completed uploads with the same content (equal SHA-256), by digest.
    public func duplicates() -> [DuplicateGroup] {
        DuplicateGroup.find(in: list())
    }

    /// A read-only look at the store in `directory`, which a running server may be using: nothing is changed
    /// (no cleanup, no truncation).
    public static func inspect(_ directory: String) throws -> StoreListing {
        let (entries, report) = try StoreRecovery.load(directory, mode: .inspect)
        let records = entries.values.map(\.record).sorted(by: UploadRecord.creationOrder)
        return StoreListing(records: records, problems: report.problems, duplicates: DuplicateGroup.find(in: records))
    }

    /// The content of the server file `name` kept beside the uploads (such as the signing key of bearer tokens),
    /// or nil when there is none. `name` is lowercase letters and dashes.
    public func serverFile(_ name: String) throws -> [UInt8]? {
        let path = try serverFilePath(name)
        guard StoreFiles.size(path) != nil else { return nil }
        return try StoreFiles.read(path)
    }

    /// Replaces the server file `name` atomically and durably, readable by the owner only (mode 0600).
    public func writeServerFile(_ name: String, _ bytes: [UInt8]) throws {
        try StoreFiles.writeAtomically(bytes, to: try serverFilePath(name), mode: 0o600)
    }

    /// `server.<name>` in the store's folder: never an upload id, so recovery and listings pass it by.
    private func serverFilePath(_ name: String) throws -> String {
        guard !name.isEmpty, name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x2D }) else {
            throw UploadStoreError(.invalidID, "server file names are lowercase letters and dashes, not '\(name)'")
        }
        return directory + "/server." + name
    }

    private func entry(_ id: String) -> UploadEntry? {
        state.withLock { $0.entries[id] }
    }

    private func owned(_ id: String, by principal: String?) throws -> UploadEntry {
        guard let entry = entry(id) else { throw notFound(id) }
        guard entry.record.principal == principal else {
            throw UploadStoreError(.principalMismatch, path: entry.folder, "\(id) belongs to another principal")
        }
        return entry
    }

    private func notFound(_ id: String) -> UploadStoreError {
        UploadStoreError(.notFound, "no upload \(id)")
    }

    /// Creates the folder, the empty data file and the metadata, each durably, before anything is reported.
    /// Makes the files of an upload created with `durable: false` durable: its data, its record, its folder and
    /// the store's.
    public func makeDurable(_ id: String) throws {
        guard let entry = entry(id) else { throw notFound(id) }
        try StoreFiles.syncFile(entry.dataPath)
        try StoreFiles.syncFile(entry.recordPath)
        try StoreFiles.syncFolder(entry.folder)
        try StoreFiles.syncFolder(directory)
    }

    private func makeEntry(_ record: UploadRecord, synced: Bool) throws -> UploadEntry {
        let entry = UploadEntry(folder: directory + "/" + record.id, record: record)
        try StoreFiles.makeDirectory(entry.folder)
        try StoreFiles.createEmpty(entry.dataPath, synced: synced)
        try UploadEntry.save(record, to: entry.recordPath, synced: synced)
        if synced { try StoreFiles.syncFolder(directory) }
        return entry
    }
}
