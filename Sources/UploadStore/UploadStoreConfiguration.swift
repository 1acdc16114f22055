import Foundation

/// How a `FileUploadStore` keeps its files.
public struct UploadStoreConfiguration: Sendable {
    /// The store's folder (`--store DIR`). Default `nil`: a fresh temporary folder, which the store reports as
    /// `FileUploadStore.directory` so the caller can print it.
    public var directory: String?

    /// How long completed uploads (and tombstones of cancelled ones) are kept, in seconds, so a client that
    /// lost the final response can learn the outcome. Default one day. Used by `removeExpired()`.
    public var completedRetention: Double

    /// The bytes read at a time when hashing completed data. Default 64 KiB.
    public var hashChunkSize: Int

    /// The clock for `createdAt`, `completedAt` and `cancelledAt`: seconds since 1970. Default the system clock.
    public var clock: @Sendable () -> Double

    public init(
        directory: String? = nil, completedRetention: Double = 86_400,
        hashChunkSize: Int = 64 * 1024, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.directory = directory
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
    /// Open uploads whose data file held more than their record said (bytes synced, or written just before a
    /// crash, after the record was last saved): id → bytes gained. Their offset is now the data's size.
    public var advanced: [String: Int64] = [:]
    /// Upload folders without metadata (a creation interrupted before it was reported); left in place.
    public var orphanFolders: [String] = []
}
