import Foundation

/// How a `FileUploadStore` keeps its files.
public struct UploadStoreConfiguration: Sendable {
    /// The store's folder (`--store DIR`). Default `nil`: a fresh temporary folder, which the store reports as
    /// `FileUploadStore.directory` so the caller can print it.
    public var directory: String?

    /// Whether opening the store cuts every open upload's data file back to its durable offset. Default `true`.
    ///
    /// After a kill -9 a data file can hold bytes that were written but never synced, so never reported to a
    /// client. The durable offset stays the reported truth either way; cutting the tail on open is the
    /// conservative choice: no byte is reported that is not on disk, and no byte is kept that was never
    /// reported. With `false` the tail stays until the next append, which always starts at the durable offset
    /// and cuts the file there first.
    public var truncateUnsyncedBytesOnOpen: Bool

    /// How long completed uploads (and tombstones of cancelled ones) are kept, in seconds, so a client that
    /// lost the final response can learn the outcome. Default one day. Used by `removeExpired()`.
    public var completedRetention: Double

    /// The bytes read at a time when hashing completed data. Default 64 KiB.
    public var hashChunkSize: Int

    /// The clock for `createdAt`, `completedAt` and `cancelledAt`: seconds since 1970. Default the system clock.
    public var clock: @Sendable () -> Double

    public init(
        directory: String? = nil, truncateUnsyncedBytesOnOpen: Bool = true, completedRetention: Double = 86_400,
        hashChunkSize: Int = 64 * 1024, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.directory = directory
        self.truncateUnsyncedBytesOnOpen = truncateUnsyncedBytesOnOpen
        self.completedRetention = completedRetention
        self.hashChunkSize = hashChunkSize
        self.clock = clock
    }
}

/// What opening a store found and did.
public struct RecoveryReport: Sendable, Equatable {
    /// Uploads loaded.
    public var recovered = 0
    /// Files or folders that could not be loaded (`corruptMetadata`, `corruptData`, `io`); they are left as
    /// they are, and their uploads are not served.
    public var problems: [UploadStoreError] = []
    /// Leftover temp files of interrupted metadata writes, removed.
    public var removedTemporaryFiles: [String] = []
    /// Open uploads whose unsynced tail was cut on open: id → bytes dropped.
    public var truncated: [String: Int64] = [:]
    /// Upload folders without metadata (a creation interrupted before it was reported); left in place.
    public var orphanFolders: [String] = []
}
