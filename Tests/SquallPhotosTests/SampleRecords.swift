import Synchronization

#if canImport(Photos)
    import Photos
#else
    import SquallPhotos
#endif

/// The sample app's own records (on a phone: storage shared with the app through an app group): what was
/// uploaded with the server's id, what was given up on, which job tracks which asset, and the change token.
/// One process runs one sample at a time in these tests (`SampleRecords.reset()` first).
enum SampleRecords {
    struct State: Sendable {
        var uploaded: [String: String] = [:]
        var failed: [String: URLError.Code] = [:]
        var tracked: [String: String] = [:]
        var pending: [String] = []
        var changeToken: PHPersistentChangeToken?
    }

    static let state = Mutex(State())

    static func reset() { state.withLock { $0 = State() } }

    static var snapshot: State { state.withLock { $0 } }
    static var changeToken: PHPersistentChangeToken? { state.withLock { $0.changeToken } }
    static var pending: [String] { state.withLock { $0.pending } }

    static func saveChangeToken(_ token: PHPersistentChangeToken) { state.withLock { $0.changeToken = token } }
    static func discardChangeToken() { state.withLock { $0.changeToken = nil } }
    static func setPending(_ ids: [String]) { state.withLock { $0.pending = ids } }

    static func recordServerMetadata(for asset: String, serverId: String?) {
        state.withLock { $0.uploaded[asset] = serverId ?? "" }
    }

    static func recordFailure(for asset: String, _ code: URLError.Code) {
        state.withLock { $0.failed[asset] = code }
    }

    static func trackUploadJob(_ asset: String, jobID: String) {
        state.withLock { $0.tracked[asset] = jobID }
    }

    /// Stops tracking jobs other than `held` (cancelled ones; acknowledged ones are uploaded or failed).
    static func forgetJobs(notIn held: Set<String>) {
        state.withLock { $0.tracked = $0.tracked.filter { held.contains($0.value) } }
    }

    static func isAlreadyUploaded(_ asset: String) -> Bool {
        state.withLock { $0.uploaded[asset] != nil }
    }

    /// Uploaded, given up on, or tracked by a job still held.
    static func isProcessed(_ asset: String) -> Bool {
        state.withLock { $0.uploaded[asset] != nil || $0.failed[asset] != nil || $0.tracked[asset] != nil }
    }
}
