import Foundation
import UploadJobs

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One background upload job as a fetch saw it (an immutable snapshot: fetch again to see later states).
public final class PHAssetResourceUploadJob: Sendable {
    /// The state of a job: `registered` → `pending` → `succeeded` | `failed`; `registered` or `pending` →
    /// `cancelled`.
    public enum State: Sendable, Hashable {
        case registered
        case pending
        case succeeded
        case failed
        case cancelled
    }

    /// What a fetch asks for: failed jobs with retries left (`retry`), finished jobs (`acknowledge`), jobs not yet
    /// finished, the only ones that can be cancelled (`process`).
    public enum Action: Sendable, Hashable {
        case retry
        case acknowledge
        case process
    }

    /// Whether the job uploads its resource or only downloads it.
    public enum `Type`: Sendable, Hashable {
        case upload
        case downloadOnly
    }

    let id: JobID
    let assetID: String

    public let localIdentifier: String
    public let state: State
    public let type: `Type`
    /// Why a failed job failed, as a `URLError` (`.timedOut`, `.networkConnectionLost`, `.cannotConnectToHost`,
    /// `.userAuthenticationRequired`, `.badServerResponse`, `.cancelled`); nil in any other state.
    public let error: (any Error)?
    /// The final response's header fields, names lower-cased, for a succeeded or failed job; nil otherwise, and
    /// nil once the job was acknowledged (its record is gone with it, as the server's `x-server-resource-id`).
    /// Reading them is noted: acknowledging a succeeded job whose fields were not read first is conduct a verdict
    /// names (`ExtensionConduct`).
    public var responseHeaderFields: [String: String]? {
        guard let binding = LibraryBinding.current else { return fields }
        if binding.isGone(id) { return nil }
        binding.noteHeadersRead(id)
        return fields
    }
    private let fields: [String: String]?

    init(_ job: UploadJob) {
        id = job.localID
        assetID = job.assetID
        localIdentifier = job.localID.description
        state = State(job.state)
        type = job.type == .upload ? .upload : .downloadOnly
        error = job.state == .failed ? job.error.map { URLError(URLError.Code(job: $0)) } : nil
        if job.state == .succeeded || job.state == .failed {
            var fields: [String: String] = [:]
            for field in job.responseHeaderFields {
                let name = field.name.lowercased()
                fields[name] = fields[name].map { $0 + ", " + field.value } ?? field.value
            }
            self.fields = fields
        } else {
            fields = nil
        }
    }

    /// The jobs the store holds for `action`, in creation order. Only during `processJobs()`.
    public static func fetchJobs(action: Action, options: PHFetchOptions?) -> PHFetchResult<PHAssetResourceUploadJob> {
        let context = PHPhotoLibrary.shared().bound("fetchJobs(action:options:)").context("fetchJobs(action:options:)")
        // Inside a change block, the block's view (with its changes so far).
        let jobs = ChangeTransaction.current?.fetch(JobAction(action)) ?? context.fetch(JobAction(action))
        return PHFetchResult(jobs.map(PHAssetResourceUploadJob.init))
    }
}

extension PHAssetResourceUploadJob.State {
    init(_ state: JobState) {
        switch state {
        case .registered: self = .registered
        case .pending: self = .pending
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .cancelled: self = .cancelled
        }
    }
}

extension JobAction {
    init(_ action: PHAssetResourceUploadJob.Action) {
        switch action {
        case .retry: self = .retry
        case .acknowledge: self = .acknowledge
        case .process: self = .process
        }
    }
}

extension URLError.Code {
    /// The URL error the system reports for a job that failed with `job`.
    init(job error: JobError) {
        switch error {
        case .timedOut: self = .timedOut
        case .networkConnectionLost: self = .networkConnectionLost
        case .cannotConnectToHost: self = .cannotConnectToHost
        case .userAuthenticationRequired: self = .userAuthenticationRequired
        case .badServerResponse: self = .badServerResponse
        case .cancelled: self = .cancelled
        }
    }
}
