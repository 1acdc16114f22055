import Foundation
import UploadJobs

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Changes to one upload job, or the creation of one, inside `PHPhotoLibrary.performChanges`. Each call acts on
/// the change block at once; a refusal (`limitExceeded`, a job that cannot take the change) makes the block throw
/// it and land nothing.
public final class PHAssetResourceUploadJobChangeRequest {
    private let transaction: ChangeTransaction
    private let job: JobID?

    /// The job a creation request made, for its local identifier; nil for a request on an existing job, or when
    /// the creation was refused.
    public let placeholderForCreatedAssetResourceUploadJob: PHObjectPlaceholder?

    private init(_ transaction: ChangeTransaction, job: JobID?, created: Bool) {
        self.transaction = transaction
        self.job = job
        placeholderForCreatedAssetResourceUploadJob = created ? job.map { PHObjectPlaceholder($0.description) } : nil
    }

    /// A request to change `job`; nil when the store no longer holds it (acknowledged or cancelled).
    public convenience init?(for job: PHAssetResourceUploadJob) {
        let transaction = ChangeTransaction.inBlock("PHAssetResourceUploadJobChangeRequest(for:)")
        guard transaction.holds(job.id) else { return nil }
        self.init(transaction, job: job.id, created: false)
    }

    /// Creates an upload job sending `resource` with `destination` (its method, URL within the extension's
    /// `BackgroundUploadURLBase`, and header fields).
    public static func creationRequestForJob(
        destination: URLRequest, resource: PHAssetResource
    ) -> PHAssetResourceUploadJobChangeRequest {
        let transaction = ChangeTransaction.inBlock("creationRequestForJob(destination:resource:)")
        let id = transaction.perform("creationRequestForJob(destination:resource:)") { block throws(PHPhotosError) in
            let upload = try transaction.binding.destinations.destination(for: destination)
            return try block.photos { block throws(JobStoreError) in
                try block.createJob(assetID: resource.assetLocalIdentifier, destination: upload)
            }
        }
        return PHAssetResourceUploadJobChangeRequest(transaction, job: id, created: true)
    }

    /// Creates a job that only downloads `resource` (from iCloud on a phone; under Squall the file is local, so
    /// the job succeeds without a transfer).
    public static func creationRequestForDownloadJob(resource: PHAssetResource) -> PHAssetResourceUploadJobChangeRequest
    {
        let transaction = ChangeTransaction.inBlock("creationRequestForDownloadJob(resource:)")
        let id = transaction.perform("creationRequestForDownloadJob(resource:)") { block throws(PHPhotosError) in
            try block.photos { block throws(JobStoreError) in
                try block.createJob(assetID: resource.assetLocalIdentifier, destination: nil, type: .downloadOnly)
            }
        }
        return PHAssetResourceUploadJobChangeRequest(transaction, job: id, created: true)
    }

    /// Removes a succeeded or failed job, freeing its slot; its record is gone afterwards.
    public func acknowledge() {
        let transaction = self.transaction
        change("acknowledge()") { block, id throws(PHPhotosError) in
            let job = block.job(id)
            try block.photos { block throws(JobStoreError) in try block.acknowledge(id) }
            if let job, job.state == .succeeded, job.type == .upload, !transaction.binding.headersWereRead(id) {
                let resourceID = job.responseHeaderFields.value(named: "x-server-resource-id")
                transaction.note(
                    ExtensionConduct(
                        .acknowledgedWithoutReadingHeaders, job: id,
                        detail: resourceID.map { "x-server-resource-id \($0)" } ?? "no x-server-resource-id"))
            }
        }
    }

    /// Retries a failed job with retries left, with its original destination (`nil`) or a new one. A job the
    /// server refused with 401 retried with the same `Authorization` is conduct a verdict names.
    public func retry(destination: URLRequest?) {
        let transaction = self.transaction
        let rule = transaction.binding.destinations
        change("retry(destination:)") { block, id throws(PHPhotosError) in
            var upload: UploadDestination?
            if let destination { upload = try rule.destination(for: destination) }
            let job = block.job(id)
            try block.photos { block throws(JobStoreError) in try block.retry(id, destination: upload) }
            guard let job, job.error == .userAuthenticationRequired else { return }
            let used = Self.authorization(of: job.destination)
            guard Self.authorization(of: upload ?? job.destination) == used else { return }
            transaction.note(
                ExtensionConduct(
                    .retriedAuthFailureWithSameAuthorization, job: id,
                    detail: used.map(Self.abridged) ?? "none"))
        }
    }

    /// The `Authorization` a destination carries.
    private static func authorization(of destination: UploadDestination?) -> String? {
        destination?.headerFields.first { $0.name.lowercased() == "authorization" }?.value
    }

    /// `Bearer 1a2b3c4d…`: enough of a credential to tell two apart in a report, not the whole secret.
    private static func abridged(_ credential: String) -> String {
        credential.count <= 15 ? credential : credential.prefix(15) + "…"
    }

    /// Cancels a registered or pending job; it is acknowledged with it.
    public func cancel() {
        change("cancel()") { block, id throws(PHPhotosError) in
            try block.photos { block throws(JobStoreError) in try block.cancel(id) }
        }
    }

    private func change(_ call: String, _ body: (inout JobChangeBlock, JobID) throws(PHPhotosError) -> Void) {
        guard let job else {
            return transaction.refuse(PHPhotosError(.invalidParameter, "\(call) on a creation that was refused"))
        }
        transaction.perform(call) { block throws(PHPhotosError) in try body(&block, job) }
    }
}

/// The identifier of an object a change block created.
public final class PHObjectPlaceholder: Sendable {
    public let localIdentifier: String

    init(_ localIdentifier: String) {
        self.localIdentifier = localIdentifier
    }
}
