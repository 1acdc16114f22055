import UploadJobs

/// The app's side of background uploads (PhotoKit's background resource upload extension): each time the system
/// calls `processJobs`, it retries failed jobs, acknowledges finished ones and creates new ones, then says whether
/// more work is left. `willTerminate` may come from any thread while `processJobs` runs; it must make the
/// running invocation return `processing` promptly.
public protocol UploadExtension: AnyObject, Sendable {
    func processJobs(_ context: ExtensionContext) -> ProcessJobsResult
    func willTerminate()
}

/// What one `processJobs` invocation reports.
public enum ProcessJobsResult: String, Sendable, Codable {
    /// More work is left (jobs to create, the in-flight limit reached, terminated early): call again.
    case processing
    /// Nothing is left to do.
    case completed
    /// An unexpected error; the system calls again later.
    case failure
}

/// What the extension sees of the system during one invocation: the job store through atomic change blocks.
public final class ExtensionContext: Sendable {
    private let system: UploadSystem

    init(system: UploadSystem) {
        self.system = system
    }

    /// Held jobs for `action` (PhotoKit `fetchJobs(action:)`).
    public func fetch(_ action: JobAction) -> [UploadJob] {
        system.journal.store.fetch(action)
    }

    /// Every held job.
    public var jobs: [UploadJob] {
        system.journal.store.jobs
    }

    /// Runs `body` as one atomic, durable change block (PhotoKit `performChanges`).
    @discardableResult
    public func performChanges(_ body: (inout JobChangeBlock) throws -> Void) throws -> [JobChange] {
        let changes = try system.journal.performChanges(at: system.now(), body)
        for case .created(let job) in changes { system.observer(.jobCreated(job.localID)) }
        return changes
    }
}
