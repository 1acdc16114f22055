#if canImport(Photos)
    import Photos
#else
    import SquallPhotos
#endif

/// The sample with one bug each: the mistakes the seed warns about, which the catalog must catch with a verdict
/// naming the extension's fault (the negative controls in Squall's docs/extension.md).
public enum BuggyVariant: String, CaseIterable, Sendable {
    /// Failed jobs are never acknowledged: each holds an in-flight slot for good.
    case neverAcknowledgesFailedJobs = "never-acknowledges-failed-jobs"
    /// `badServerResponse` is retried like a network error, up to the retry limit.
    case retriesBadServerResponse = "retries-bad-server-response"
    /// `willTerminate()` is ignored: `processJobs()` goes on creating jobs.
    case ignoresWillTerminate = "ignores-will-terminate"
    /// Succeeded jobs are acknowledged first and their headers read after, when the record is gone.
    case acknowledgesBeforeReadingHeaders = "acknowledges-before-reading-headers"
    /// A job the server refused with 401 is retried with its original destination, the refused token in it.
    case retries401WithStaleToken = "retries-401-with-stale-token"

    public var type: any PHBackgroundResourceUploadJobExtension.Type {
        switch self {
        case .neverAcknowledgesFailedJobs: NeverAcknowledgesFailedJobs.self
        case .retriesBadServerResponse: RetriesBadServerResponse.self
        case .ignoresWillTerminate: IgnoresWillTerminate.self
        case .acknowledgesBeforeReadingHeaders: AcknowledgesBeforeReadingHeaders.self
        case .retries401WithStaleToken: Retries401WithStaleToken.self
        }
    }
}

public final class NeverAcknowledgesFailedJobs: SampleUploadExtension {
    override func acknowledge(_ job: PHAssetResourceUploadJob) async throws {
        guard job.state != .failed else { return }
        try await super.acknowledge(job)
    }
}

public final class RetriesBadServerResponse: SampleUploadExtension {
    override func isPermanent(_ error: URLError) -> Bool {
        error.code == .userAuthenticationRequired
    }
}

public final class IgnoresWillTerminate: SampleUploadExtension {
    override public func willTerminate() async {}
}

public final class AcknowledgesBeforeReadingHeaders: SampleUploadExtension {
    override func acknowledgeCompletedJobs() async throws {
        let completedJobs = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: nil)
        for i in 0..<completedJobs.count {
            let job = completedJobs.object(at: i)
            try await acknowledge(job)
            guard let resource = PHAssetResource.assetResource(forUploadJob: job) else { continue }
            if job.state == .succeeded && job.type == .upload {
                SampleRecords.recordServerMetadata(
                    for: resource.assetLocalIdentifier, serverId: job.responseHeaderFields?["x-server-resource-id"])
            } else if job.state == .failed, let error = job.error as? URLError {
                SampleRecords.recordFailure(for: resource.assetLocalIdentifier, error.code)
            }
        }
    }
}

public final class Retries401WithStaleToken: SampleUploadExtension {
    override func retryFailedJobs() async throws {
        let retryableJobs = PHAssetResourceUploadJob.fetchJobs(action: .retry, options: nil)
        for i in 0..<retryableJobs.count {
            let job = retryableJobs.object(at: i)
            if let error = job.error as? URLError, error.code == .badServerResponse {
                try await acknowledge(job)
                continue
            }
            try await retry(job, destination: nil)
        }
    }
}
