import UploadJobs

/// Builders shared by the job model tests.
enum JobFixtures {
    static let destination = UploadDestination(
        url: "https://127.0.0.1:8443/upload",
        headerFields: [HeaderField("Authorization", "Bearer t1"), HeaderField("X-Filename", "a.jpg")])

    /// A store with limits `inFlight` and `retries`.
    static func store(inFlight: Int = 16, retries: Int = 3) -> JobStore {
        JobStore(configuration: JobStoreConfiguration(inFlightLimit: inFlight, retryLimit: retries))
    }

    /// Creates an upload job for `asset` in its own block.
    static func create(_ store: inout JobStore, asset: String = "asset-1", at now: JobTime = 0) throws -> JobID {
        var id: JobID?
        try store.performChanges(at: now) { id = try $0.createJob(assetID: asset, destination: destination) }
        return id!
    }

    /// Runs one system or extension step on `id` in its own block.
    static func step(
        _ store: inout JobStore, _ id: JobID, at now: JobTime = 0,
        _ change: (inout JobChangeBlock, JobID) throws -> Void
    ) throws {
        try store.performChanges(at: now) { try change(&$0, id) }
    }

    /// Takes a pending job to failed with a transient error.
    static func failTransient(_ store: inout JobStore, _ id: JobID, at now: JobTime = 0) throws {
        try step(&store, id, at: now) { try $0.fail($1, error: .networkConnectionLost) }
    }

    /// The error code `body` throws, or nil when it does not throw a `JobStoreError`.
    static func code(_ body: () throws -> Void) -> JobStoreError.Code? {
        do {
            try body()
            return nil
        } catch let error as JobStoreError {
            return error.code
        } catch {
            return nil
        }
    }
}
