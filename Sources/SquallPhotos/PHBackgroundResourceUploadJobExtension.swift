/// The app's upload extension as PhotoKit declares it: the system creates it with `init()`, calls `processJobs()`
/// when upload work is available and `willTerminate()` before it stops it, possibly while `processJobs()` runs.
///
/// Under Squall the "system" is `PhotosExtensionHost` over the reference client's `UploadSystem`: the same job
/// model, journal and transfers as every scenario's client, with this extension in place of the built-in policy.
/// Its type is handed across threads (`SendableMetatype`): the host creates the extension on its own thread.
public protocol PHBackgroundResourceUploadJobExtension: AnyObject, SendableMetatype {
    init()
    func processJobs() async -> PHBackgroundResourceUploadProcessingResult
    func willTerminate() async
}

/// What one `processJobs()` reports.
public enum PHBackgroundResourceUploadProcessingResult: Sendable, Hashable {
    /// Nothing is left to do.
    case completed
    /// More work is left (the in-flight limit reached, terminated early): call again.
    case processing
    /// An unexpected error; the system calls again later.
    case failure
}
