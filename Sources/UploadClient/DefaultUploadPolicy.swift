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

/// The extension policy of PhotoKit's sample, with `UploadPolicyConfiguration`'s knobs. Each invocation:
/// 1. retries failed jobs whose error is transient (with a refreshed token after `userAuthenticationRequired`
///    when asked) and acknowledges the others;
/// 2. records each finished job's outcome (`x-server-resource-id` for successes) durably, then acknowledges it;
/// 3. creates jobs for assets not yet uploaded until `limitExceeded`;
/// 4. returns `processing` while jobs are held or assets are left, `completed` when nothing is, `failure` on an
///    unexpected error. `willTerminate` makes it return `processing` between steps.
public final class DefaultUploadPolicy: UploadExtension {
    public let configuration: UploadPolicyConfiguration
    let assets: [String]
    let template: UploadDestinationTemplate
    let stateFile: ExtensionStateFile
    private let state: Mutex<ExtensionState>
    private let terminating = Atomic<Bool>(false)

    /// A policy uploading `assets` (asset ids), remembering outcomes in the JSON file `statePath`.
    public init(
        assets: [String], destination: UploadDestinationTemplate, statePath: String,
        configuration: UploadPolicyConfiguration = UploadPolicyConfiguration()
    ) throws {
        self.assets = assets
        self.template = destination
        self.configuration = configuration
        self.stateFile = ExtensionStateFile(path: statePath)
        self.state = Mutex(try stateFile.load())
    }

    /// The outcomes recorded so far.
    public var outcomes: ExtensionState {
        state.withLock { $0 }
    }

    public func willTerminate() {
        terminating.store(true, ordering: .sequentiallyConsistent)
    }

    public func processJobs(_ context: ExtensionContext) -> ProcessJobsResult {
        terminating.store(false, ordering: .sequentiallyConsistent)
        do {
            guard try retryFailed(context) else { return .processing }
            if isTerminating { return .processing }
            try acknowledgeFinished(context)
            if isTerminating { return .processing }
            if configuration.cancelRedundantJobs { try cancelRedundant(context) }
            guard try createJobs(context) else { return .processing }
            let done = state.withLock { state in assets.allSatisfy(state.isDone) }
            return done && context.jobs.isEmpty ? .completed : .processing
        } catch {
            return .failure
        }
    }

    private var isTerminating: Bool {
        terminating.load(ordering: .sequentiallyConsistent)
    }

    /// Step 1; false when the in-flight limit stopped it.
    private func retryFailed(_ context: ExtensionContext) throws -> Bool {
        var refreshed = false
        for job in context.fetch(.retry) {
            if isTerminating { return true }
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

    /// Step 2.
    private func acknowledgeFinished(_ context: ExtensionContext) throws {
        for job in context.fetch(.acknowledge) where job.state == .succeeded || job.state == .failed {
            if isTerminating { return }
            try finish(job, context)
        }
    }

    /// Records the job's outcome durably, then its server id in the ledger and the acknowledgement.
    private func finish(_ job: UploadJob, _ context: ExtensionContext) throws {
        let resourceID = job.responseHeader("x-server-resource-id")
        let updated = state.withLock { state in
            if job.state == .succeeded {
                state.uploaded[job.assetID] = resourceID ?? ""
            } else {
                state.failed[job.assetID] = job.error ?? .badServerResponse
            }
            return state
        }
        try stateFile.save(updated)
        try context.performChanges { block in
            if let resourceID, !resourceID.isEmpty { try block.record(.serverResourceID(resourceID), job: job.localID) }
            try block.acknowledge(job.localID)
        }
    }

    /// Cancels every held registered or pending job of an asset but the oldest.
    private func cancelRedundant(_ context: ExtensionContext) throws {
        var seen = Set<String>()
        var redundant: [JobID] = []
        for job in context.jobs {
            if !seen.insert(job.assetID).inserted, job.state == .registered || job.state == .pending {
                redundant.append(job.localID)
            }
        }
        guard !redundant.isEmpty else { return }
        try context.performChanges { block in
            for id in redundant { try block.cancel(id) }
        }
    }

    /// Step 3, in one change block; false when the in-flight limit stopped it.
    private func createJobs(_ context: ExtensionContext) throws -> Bool {
        let held = Set(context.jobs.map(\.assetID))
        let wanted = state.withLock { state in assets.filter { !state.isDone($0) && !held.contains($0) } }
        guard !wanted.isEmpty else { return true }
        let destinations = try wanted.map { try template.destination(for: $0) }
        var limited = false
        try context.performChanges { block in
            for (asset, destination) in zip(wanted, destinations) where !limited {
                limited = try !Self.create(asset, destination, in: &block)
            }
        }
        return !limited
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
