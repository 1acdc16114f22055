import Synchronization

// The seed's sample upload extension (photokit-background-resource-upload.md), written against the PhotoKit API
// with only the import made conditional: on Linux it compiles against SquallPhotos. Its app-side helpers (what was
// uploaded, which jobs track which assets) keep their records in `SampleRecords`, in the app group's container;
// its bearer token comes from the app (`SampleCredentials`), and a job the server refused with 401 is retried with
// a new one, as the seed's "Option 2" has it ("a new destination; for example, with refreshed authorization").
//
// Not final, and its steps not private, only so that BuggyVariants.swift can change one behaviour each; the
// logic is the seed's.
#if canImport(Photos)
    import Photos
#else
    import SquallPhotos
#endif

public class SampleUploadExtension: PHBackgroundResourceUploadJobExtension {
    let isCancelled = Atomic<Bool>(false)

    public required init() {}

    public func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
        do {
            try await retryFailedJobs()
            if isCancelled.load(ordering: .acquiring) { return .processing }
            try await acknowledgeCompletedJobs()
            if isCancelled.load(ordering: .acquiring) { return .processing }
            try cancelRedundantJobs()
            try await createNewUploadJobs()
            return .completed
        } catch PHPhotosError.limitExceeded {
            return .processing
        } catch PHPhotosError.persistentChangeTokenExpired {
            SampleRecords.discardChangeToken()
            return .processing
        } catch {
            return .failure
        }
    }

    public func willTerminate() async {
        isCancelled.store(true, ordering: .releasing)
    }

    /// The failures not worth retrying: the server answered and will answer the same, or the user must sign in.
    func isPermanent(_ error: URLError) -> Bool {
        error.code == .badServerResponse || error.code == .userAuthenticationRequired
    }

    func acknowledge(_ job: PHAssetResourceUploadJob) async throws {
        try await PHPhotoLibrary.shared().performChanges {
            guard let request = PHAssetResourceUploadJobChangeRequest(for: job) else { return }
            request.acknowledge()
        }
    }

    func retryFailedJobs() async throws {
        let retryableJobs = PHAssetResourceUploadJob.fetchJobs(action: .retry, options: nil)
        for i in 0..<retryableJobs.count {
            let job = retryableJobs.object(at: i)
            if let error = job.error as? URLError, error.code == .userAuthenticationRequired,
                let resource = PHAssetResource.assetResource(forUploadJob: job),
                let authorization = try SampleCredentials.refreshedAuthorization()
            {
                // The server refused the token: sign in again and retry with a destination carrying the new one.
                try await retry(job, destination: destination(for: resource, authorization: authorization))
                continue
            }
            if let error = job.error as? URLError, isPermanent(error) {
                // Permanent: record the failure, then acknowledge instead of retrying.
                if let resource = PHAssetResource.assetResource(forUploadJob: job) {
                    SampleRecords.recordFailure(for: resource.assetLocalIdentifier, error.code)
                }
                try await acknowledge(job)
                continue
            }
            try await retry(job, destination: nil)
        }
    }

    /// Retries `job` with its original destination (`nil`) or a new one.
    func retry(_ job: PHAssetResourceUploadJob, destination: URLRequest?) async throws {
        try await PHPhotoLibrary.shared().performChanges {
            guard let request = PHAssetResourceUploadJobChangeRequest(for: job) else { return }
            request.retry(destination: destination)
        }
    }

    /// Where `resource` is uploaded to, with the app's `authorization` when it has one.
    func destination(for resource: PHAssetResource, authorization: String?) -> URLRequest {
        let url = URL(string: "https://api.example.com/upload")!
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.setValue(resource.originalFilename, forHTTPHeaderField: "X-Filename")
        return request
    }

    func acknowledgeCompletedJobs() async throws {
        let completedJobs = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: nil)
        for i in 0..<completedJobs.count {
            let job = completedJobs.object(at: i)
            if let headers = job.responseHeaderFields, let resource = PHAssetResource.assetResource(forUploadJob: job) {
                if job.state == .succeeded && job.type == .upload {
                    SampleRecords.recordServerMetadata(
                        for: resource.assetLocalIdentifier, serverId: headers["x-server-resource-id"])
                } else if job.state == .failed, let error = job.error as? URLError {
                    SampleRecords.recordFailure(for: resource.assetLocalIdentifier, error.code)
                }
            }
            try await acknowledge(job)
        }
    }

    private func cancelRedundantJobs() throws {
        let library = PHPhotoLibrary.shared()
        let inProgressJobs = PHAssetResourceUploadJob.fetchJobs(action: .process, options: nil)
        for i in 0..<inProgressJobs.count {
            let job = inProgressJobs.object(at: i)
            guard let resource = PHAssetResource.assetResource(forUploadJob: job),
                SampleRecords.isAlreadyUploaded(resource.assetLocalIdentifier)
            else { continue }
            try library.performChangesAndWait {
                guard let request = PHAssetResourceUploadJobChangeRequest(for: job) else { return }
                request.cancel()
            }
        }
    }

    private func createNewUploadJobs() async throws {
        let library = PHPhotoLibrary.shared()
        let resources = try getUnprocessedResources(from: library)
        let authorization = resources.isEmpty ? nil : try SampleCredentials.authorization()
        for resource in resources {
            let request = destination(for: resource, authorization: authorization)
            try await library.performChanges {
                let jobRequest = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(
                    destination: request, resource: resource)
                if let jobID = jobRequest.placeholderForCreatedAssetResourceUploadJob?.localIdentifier {
                    SampleRecords.trackUploadJob(resource.assetLocalIdentifier, jobID: jobID)
                }
            }
            if isCancelled.load(ordering: .acquiring) { return }
        }
    }

    /// The library's assets not yet uploaded, given up on or tracked by a job: from the persistent changes since
    /// the saved token, or every asset when there is none.
    private func getUnprocessedResources(from library: PHPhotoLibrary) throws -> [PHAssetResource] {
        // A tracked job the system no longer holds was cancelled (acknowledged ones are recorded): its asset is
        // unprocessed again. Unfinished jobs are fetched first: one that finishes meanwhile moves on to the retry
        // or acknowledge fetch, which come after, so no held job is missed (the other order once made a job that
        // finished between the fetches look gone, and its asset was uploaded twice).
        var held: Set<String> = []
        for action in [PHAssetResourceUploadJob.Action.process, .retry, .acknowledge] {
            let jobs = PHAssetResourceUploadJob.fetchJobs(action: action, options: nil)
            for i in 0..<jobs.count { held.insert(jobs.object(at: i).localIdentifier) }
        }
        SampleRecords.forgetJobs(notIn: held)
        var identifiers: [String] = []
        if let token = SampleRecords.changeToken {
            for change in try library.fetchPersistentChanges(since: token) {
                let details = try change.changeDetails(for: .asset)
                identifiers += details.insertedLocalIdentifiers.sorted() + details.updatedLocalIdentifiers.sorted()
                SampleRecords.saveChangeToken(change.changeToken)
            }
            identifiers += SampleRecords.pending
        } else {
            let token = library.currentChangeToken
            let assets = PHAsset.fetchAssets(with: nil)
            for i in 0..<assets.count { identifiers.append(assets.object(at: i).localIdentifier) }
            SampleRecords.saveChangeToken(token)
        }
        let assets = PHAsset.fetchAssets(withLocalIdentifiers: identifiers, options: nil)
        var resources: [PHAssetResource] = []
        for i in 0..<assets.count {
            for resource in PHAssetResource.assetResources(for: assets.object(at: i))
            where !SampleRecords.isProcessed(resource.assetLocalIdentifier) {
                resources.append(resource)
            }
        }
        SampleRecords.setPending(resources.map(\.assetLocalIdentifier))
        return resources
    }
}
