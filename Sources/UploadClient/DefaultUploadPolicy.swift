import HTTPWire
import Synchronization
import UploadJobs

/// The knobs of the seed's sample extension policy.
public struct UploadPolicyConfiguration: Sendable, Equatable {
    /// Errors after which a failed job is acknowledged instead of retried. Default: `badServerResponse` and
    /// `userAuthenticationRequired` (the seed's sample).
    public var permanentErrors: Set<JobError>
    /// Retry a job that failed with `userAuthenticationRequired` with a refreshed token (a new destination) when
    /// the token source can refresh, instead of giving up on it. Default true.
    public var refreshAuthentication: Bool
    /// Cancel every held job for an asset but the oldest (registered or pending ones only). Default true.
    public var cancelRedundantJobs: Bool

    public init(
        permanentErrors: Set<JobError> = [.badServerResponse, .userAuthenticationRequired],
        refreshAuthentication: Bool = true, cancelRedundantJobs: Bool = true
    ) {
        self.permanentErrors = permanentErrors
        self.refreshAuthentication = refreshAuthentication
        self.cancelRedundantJobs = cancelRedundantJobs
    }
}

/// Where new jobs upload to: the creation URL, method and fields, with `Authorization: Bearer` from a token
/// source and `X-Filename` per asset.
public struct UploadDestinationTemplate: Sendable {
    public var url: String
    public var method: String
    public var headerFields: [HeaderField]
    public var tokens: (any TokenSource)?

    public init(url: String, method: String = "POST", headerFields: [HeaderField] = [], tokens: (any TokenSource)?) {
        self.url = url
        self.method = method
        self.headerFields = headerFields
        self.tokens = tokens
    }

    /// The destination for `asset`, with a refreshed token when `refresh`.
    func destination(for asset: String, refresh: Bool = false) throws -> UploadDestination {
        var fields = headerFields
        fields.append(HeaderField("X-Filename", String(asset.split(separator: "/").last ?? "")))
        if let tokens {
            fields.append(HeaderField("Authorization", "Bearer " + (try tokens.token(refresh: refresh))))
        }
        return UploadDestination(method: method, url: url, headerFields: fields)
    }
}

/// Why the policy refused a request from its host app.
public struct UploadPolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable identity of a refusal.
    public enum Code: String, Sendable, Codable {
        /// Enabling the extension without photo library authorization (PhotoKit: full access is required
        /// before `setUploadJobExtensionEnabled(true)`).
        case notAuthorized
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}

/// The extension policy of PhotoKit's sample, with `UploadPolicyConfiguration`'s knobs, reading its work from an
/// `AssetLibrary` with persistent change tracking. Each invocation, while enabled:
/// 1. retries failed jobs whose error is transient (with a refreshed token after `userAuthenticationRequired`
///    when asked) and acknowledges the others; the system starts a retried job's transfer after a backoff
///    (`UploadSystem.retryDelay(for:)`), so retries are never spent back to back;
/// 2. records each finished job's outcome (`x-server-resource-id` for successes) durably, then acknowledges it;
/// 3. cancels redundant jobs (when asked), reads the library's changes since the saved token into the queue of
///    assets to upload, and creates jobs for queued assets with none held, as many as there are free in-flight
///    slots;
/// 4. returns `processing` while jobs are held or assets are queued, `completed` when nothing is, `failure` on an
///    unexpected error.
///
/// **Change tracking.** The token and the queue are saved in `ExtensionState` together, so a relaunch neither
/// loses nor repeats work. When the library throws `persistentChangeTokenExpired`, the token is discarded and the
/// invocation returns `processing`; the next one re-syncs with a full fetch, which skips assets already uploaded
/// or given up on.
///
/// **Termination.** `willTerminate` (from any thread) sets a flag checked between steps and inside every loop
/// (retry, acknowledge, create); the invocation then returns `processing` after the change it is making, with
/// nothing half done: each change block is atomic and each outcome is saved before its acknowledgement. The flag
/// is cleared when the next invocation begins.
///
/// **Enabled (model choice).** While disabled (sign-out) an invocation creates and retries nothing: it records
/// and acknowledges succeeded jobs, acknowledges failed ones without giving up on their assets, cancels
/// registered and pending jobs (uploads stop at once; PhotoKit: the extension processes uploads only while
/// enabled), and returns `completed`. The assets stay queued, so enabling again uploads them with new jobs.
/// Disabling during an invocation makes it return `processing` as `willTerminate` does. The flag is durable.
public final class DefaultUploadPolicy: UploadExtension {
    public let configuration: UploadPolicyConfiguration
    /// Where the assets come from.
    public let library: any AssetLibrary
    let template: UploadDestinationTemplate
    let stateFile: ExtensionStateFile
    private let state: Mutex<ExtensionState>
    private let terminating = Atomic<Bool>(false)

    /// A policy uploading `assets` (asset ids: the files' paths, a `FileAssetLibrary`), remembering outcomes in
    /// the JSON file `statePath`.
    public convenience init(
        assets: [String], destination: UploadDestinationTemplate, statePath: String,
        configuration: UploadPolicyConfiguration = UploadPolicyConfiguration()
    ) throws {
        try self.init(
            library: FileAssetLibrary(assetIDs: assets), destination: destination, statePath: statePath,
            configuration: configuration)
    }

    /// A policy uploading the assets of `library` as they appear, remembering its state in the JSON file
    /// `statePath`.
    public init(
        library: any AssetLibrary, destination: UploadDestinationTemplate, statePath: String,
        configuration: UploadPolicyConfiguration = UploadPolicyConfiguration()
    ) throws {
        self.library = library
        self.template = destination
        self.configuration = configuration
        self.stateFile = ExtensionStateFile(path: statePath)
        self.state = Mutex(try stateFile.load())
    }

    /// The outcomes, queue, change token and enabled flag as saved now.
    public var outcomes: ExtensionState {
        state.withLock { $0 }
    }

    /// Whether the extension processes uploads.
    public var isEnabled: Bool {
        state.withLock { $0.enabled }
    }

    /// Enables processing (PhotoKit `setUploadJobExtensionEnabled(true)`), durably; without photo library
    /// authorization it throws `UploadPolicyError` with code `notAuthorized` and changes nothing.
    public func enable(authorized: Bool) throws {
        guard authorized else {
            throw UploadPolicyError(.notAuthorized, "enabling the upload extension requires library authorization")
        }
        try update { $0.enabled = true }
    }

    /// Disables processing (sign-out), durably; see the type's comment for what the next invocation does.
    public func disable() throws {
        try update { $0.enabled = false }
    }

    public func willTerminate() {
        terminating.store(true, ordering: .sequentiallyConsistent)
    }

    /// One invocation. A `willTerminate` that arrives before it starts counts for it (the flag is cleared when
    /// an invocation returns, not when it starts). When a retry meets the in-flight limit, finished jobs are still
    /// acknowledged (freeing slots) before it returns `processing`.
    public func processJobs(_ context: ExtensionContext) -> ProcessJobsResult {
        defer { terminating.store(false, ordering: .sequentiallyConsistent) }
        do {
            guard isEnabled else { return try processDisabled(context) }
            let retriedAll = try retryFailed(context)
            if isInterrupted { return .processing }
            try acknowledgeFinished(context)
            if isInterrupted || !retriedAll { return .processing }
            if configuration.cancelRedundantJobs { try cancelRedundant(context) }
            guard try syncLibrary(), !isInterrupted else { return .processing }
            try createJobs(context)
            if isInterrupted { return .processing }
            let done = state.withLock { $0.queued.isEmpty }
            return done && context.jobs.isEmpty ? .completed : .processing
        } catch {
            return .failure
        }
    }

    /// Whether the running invocation must stop: `willTerminate` was called or the extension was disabled.
    private var isInterrupted: Bool {
        terminating.load(ordering: .sequentiallyConsistent) || !isEnabled
    }

    /// Changes the state and saves it, under the lock (saves never overlap); unchanged when the save fails.
    private func update(_ body: (inout ExtensionState) -> Void) throws {
        try state.withLock { state in
            var updated = state
            body(&updated)
            guard updated != state else { return }
            try stateFile.save(updated)
            state = updated
        }
    }

    /// Step 1; false when the in-flight limit stopped it.
    private func retryFailed(_ context: ExtensionContext) throws -> Bool {
        var refreshed = false
        for job in context.fetch(.retry) {
            if isInterrupted { return true }
            guard let error = job.error else { continue }
            var destination: UploadDestination?
            if error == .userAuthenticationRequired, configuration.refreshAuthentication,
                template.tokens?.canRefresh == true
            {
                destination = try template.destination(for: job.assetID, refresh: !refreshed)
                refreshed = true
            } else if configuration.permanentErrors.contains(error) {
                try finish(job, context)
                continue
            }
            do {
                try context.performChanges { try $0.retry(job.localID, destination: destination) }
            } catch let error as JobStoreError where error.code == .limitExceeded {
                return false
            }
        }
        return true
    }

    /// Step 2: succeeded jobs, and failed ones with no retry left. A job that failed after step 1 fetched and has
    /// retries left is left for the next invocation's step 1 (acknowledging it would give up on a transient
    /// error). Fetched in this order so that such a job is in the retry set: a failed job stays failed until the
    /// extension acts.
    private func acknowledgeFinished(_ context: ExtensionContext) throws {
        let finished = context.fetch(.acknowledge)
        let retryable = Set(context.fetch(.retry).map(\.localID))
        for job in finished where !retryable.contains(job.localID) {
            if isInterrupted { return }
            try finish(job, context)
        }
    }

    /// Records the job's outcome durably (unless `record` is false), then acknowledges it. (The ledger already has
    /// the server id: the job store takes it from the final response's `x-server-resource-id`.)
    private func finish(_ job: UploadJob, _ context: ExtensionContext, record: Bool = true) throws {
        let resourceID = job.responseHeader("x-server-resource-id")
        if record {
            try update { state in
                if job.state == .succeeded {
                    state.recordUploaded(job.assetID, resourceID: resourceID ?? "")
                } else {
                    state.recordFailed(job.assetID, error: job.error ?? .badServerResponse)
                }
            }
        }
        try context.performChanges { try $0.acknowledge(job.localID) }
    }

    /// An invocation while disabled (see the type's comment).
    private func processDisabled(_ context: ExtensionContext) throws -> ProcessJobsResult {
        for job in context.fetch(.acknowledge) {
            try finish(job, context, record: job.state == .succeeded)
        }
        try context.performChanges { block in
            for job in block.fetch(.process) { try block.cancel(job.localID) }
        }
        return .completed
    }

    /// Cancels every registered or pending job of an asset but its oldest held job, in one change block that sees
    /// the jobs as they are when it runs.
    private func cancelRedundant(_ context: ExtensionContext) throws {
        try context.performChanges { block in
            let held = (block.fetch(.process) + block.fetch(.acknowledge)).sorted { $0.localID < $1.localID }
            var seen = Set<String>()
            for job in held where !seen.insert(job.assetID).inserted {
                if job.state == .registered || job.state == .pending { try block.cancel(job.localID) }
            }
        }
    }

    /// Reads the library's changes since the saved token into the queue, durably; false when the token expired
    /// (it is discarded, so the next invocation re-syncs with a full fetch).
    private func syncLibrary() throws -> Bool {
        let token = state.withLock { $0.changeToken }
        do {
            let changes = try library.changes(since: token)
            try update { $0.take(changes, fullFetch: token == nil) }
            return true
        } catch let error as AssetLibraryError where error.code == .persistentChangeTokenExpired {
            try update { $0.changeToken = nil }
            return false
        }
    }

    /// Step 3: creates jobs for queued assets with no job held, at most as many as there are free in-flight slots
    /// (read through an empty change block), in one change block. Building the destinations (which may fetch a
    /// token) stops when interrupted; the jobs whose destinations are built are still created, as progress kept
    /// (the block does no I/O), unless the extension was disabled meanwhile.
    private func createJobs(_ context: ExtensionContext) throws {
        let held = Set(context.jobs.map(\.assetID))
        var free = 0
        try context.performChanges { free = max(0, $0.configuration.inFlightLimit - $0.inFlightCount) }
        let wanted = state.withLock { state in Array(state.queued.lazy.filter { !held.contains($0) }.prefix(free)) }
        var destinations: [(String, UploadDestination)] = []
        for asset in wanted {
            if isInterrupted { break }
            destinations.append((asset, try template.destination(for: asset)))
        }
        guard isEnabled else { return }
        try context.performChanges { block in
            for (asset, destination) in destinations {
                guard try Self.create(asset, destination, in: &block) else { return }
            }
        }
    }

    /// Creates a job in `block`; false when every in-flight slot is taken.
    private static func create(
        _ asset: String, _ destination: UploadDestination, in block: inout JobChangeBlock
    ) throws -> Bool {
        do {
            try block.createJob(assetID: asset, destination: destination)
            return true
        } catch {
            guard error.code == .limitExceeded else { throw error }
            return false
        }
    }
}
