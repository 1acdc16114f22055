import Foundation
import Synchronization

#if canImport(Photos)
    import Photos
#else
    import SquallPhotos
#endif

/// The sample app's own records: what was uploaded with the server's id, what was given up on, which job tracks
/// which asset, and the persistent change token. They live in the app group's container, shared by the app and
/// its extension and kept across launches (under Squall, in the journal folder: a killed and relaunched client
/// finds them as a phone's extension would).
public enum SampleRecords {
    /// The app group the app and its extension share.
    public static let appGroup = "group.com.example.photos-backup"

    public struct State: Sendable, Codable {
        /// Asset identifier → the server's `x-server-resource-id` ("" when the response had none).
        public var uploaded: [String: String] = [:]
        /// Asset identifier → the `URLError.Code` raw value it was given up with.
        public var failed: [String: Int] = [:]
        /// Asset identifier → the local identifier of the job uploading it.
        public var tracked: [String: String] = [:]
        public var pending: [String] = []
        public var changeToken: PHPersistentChangeToken?
    }

    /// One read-modify-write at a time in this process (the extension's calls may come from two threads).
    private static let lock = Mutex(())

    private static var file: URL? {
        FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)?
            .appendingPathComponent("records.json")
    }

    /// The records as they are now.
    public static var snapshot: State {
        lock.withLock { _ in load() }
    }

    /// Forgets everything (a signed-out app).
    public static func reset() {
        lock.withLock { _ in
            if let file { try? FileManager.default.removeItem(at: file) }
        }
    }

    static var changeToken: PHPersistentChangeToken? { snapshot.changeToken }
    static var pending: [String] { snapshot.pending }

    static func saveChangeToken(_ token: PHPersistentChangeToken) { update { $0.changeToken = token } }
    static func discardChangeToken() { update { $0.changeToken = nil } }
    static func setPending(_ ids: [String]) { update { $0.pending = ids } }

    static func recordServerMetadata(for asset: String, serverId: String?) {
        update { $0.uploaded[asset] = serverId ?? "" }
    }

    static func recordFailure(for asset: String, _ code: URLError.Code) {
        update { $0.failed[asset] = code.rawValue }
    }

    static func trackUploadJob(_ asset: String, jobID: String) {
        update { $0.tracked[asset] = jobID }
    }

    /// Stops tracking jobs other than `held` (cancelled ones; acknowledged ones are uploaded or failed).
    static func forgetJobs(notIn held: Set<String>) {
        update { $0.tracked = $0.tracked.filter { held.contains($0.value) } }
    }

    static func isAlreadyUploaded(_ asset: String) -> Bool {
        snapshot.uploaded[asset] != nil
    }

    /// Uploaded, given up on, or tracked by a job still held.
    static func isProcessed(_ asset: String) -> Bool {
        let state = snapshot
        return state.uploaded[asset] != nil || state.failed[asset] != nil || state.tracked[asset] != nil
    }

    private static func update(_ change: (inout State) -> Void) {
        lock.withLock { _ in
            var state = load()
            change(&state)
            guard let file, let data = try? JSONEncoder().encode(state) else { return }
            // Written whole and renamed into place: a kill mid-write leaves the previous records.
            try? data.write(to: file, options: .atomic)
        }
    }

    private static func load() -> State {
        guard let file, let data = try? Data(contentsOf: file),
            let state = try? JSONDecoder().decode(State.self, from: data)
        else { return State() }
        return state
    }
}
