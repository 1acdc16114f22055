/// Where a job is in its life (PhotoKit `PHAssetResourceUploadJob.State`).
///
/// ```
/// createJob ──▶ registered ──start──▶ pending ──succeed──▶ succeeded ──acknowledge──▶ (removed)
///                                     pending ──fail─────▶ failed ─────acknowledge──▶ (removed)
///                                     failed ───retry────▶ registered (while retries are left)
///     registered or pending ──cancel──▶ cancelled ──acknowledged automatically──▶ (removed)
/// ```
public enum JobState: String, Sendable, Codable, CaseIterable {
    /// Created by the extension; the system has not begun a transfer. Next: pending, cancelled.
    case registered
    /// The system is transferring it (automatic resumes stay here). Next: succeeded, failed, cancelled.
    case pending
    /// The final response was 2xx. Next: acknowledged (removed).
    case succeeded
    /// The transfer failed; `error` says why. Next: registered (retry), acknowledged (removed).
    case failed
    /// Cancelled by the extension; acknowledged at once, so only the ledger ever shows it.
    case cancelled
}

/// What a job does (PhotoKit `PHAssetResourceUploadJob.Type`).
public enum JobType: String, Sendable, Codable, CaseIterable {
    /// Uploads the asset to the job's destination.
    case upload
    /// Only makes the asset local; it has no destination.
    case downloadOnly
}

/// Which jobs a fetch returns (PhotoKit `PHAssetResourceUploadJob.Action`).
public enum JobAction: String, Sendable, Codable, CaseIterable {
    /// Failed jobs that have not used up the retry limit.
    case retry
    /// Succeeded or failed jobs (a failed job past the retry limit can only be acknowledged).
    case acknowledge
    /// Registered or pending jobs: the only ones that can be cancelled.
    case process

    /// Whether a job in `state` with `retryCount` retries used is fetched for this action.
    func matches(_ job: UploadJob, retryLimit: Int) -> Bool {
        switch self {
        case .retry: job.state == .failed && job.retryCount < retryLimit
        case .acknowledge: job.state == .succeeded || job.state == .failed
        case .process: job.state == .registered || job.state == .pending
        }
    }
}
