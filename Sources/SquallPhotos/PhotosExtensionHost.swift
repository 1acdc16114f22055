import Dispatch
import Synchronization
import UploadClient
import UploadJobs

/// Runs an app's `PHBackgroundResourceUploadJobExtension` as the reference client's extension: the
/// `UploadSystem` calls the host, the host calls the app's `processJobs()` with `PHPhotoLibrary.shared()` bound
/// to the system's job store for the invocation, and maps its result. One model: the jobs, journal, limits and
/// transfers are the system's own, as for the built-in `DefaultUploadPolicy`.
///
/// `processJobs()` and `willTerminate()` run as tasks; the system's thread waits for each. As on a phone,
/// `willTerminate()` may come while `processJobs()` runs; the extension must then return promptly. While the
/// extension is disabled (`setUploadJobExtensionEnabled(false)`), it is not called and the invocation completes.
/// `PHPhotoLibrary.shared()` reaches the host whose extension calls it (a task-local binding), so hosts can run
/// side by side in one process.
public final class PhotosExtensionHost: UploadExtension {
    private let type: any PHBackgroundResourceUploadJobExtension.Type
    /// The running extension; nil once it was terminated: the next invocation launches a new one with `init()`, as
    /// the system relaunches a terminated extension.
    private let instance: Mutex<ExtensionInstance?>
    private let binding: LibraryBinding

    /// A host for the app's extension `type`, created with `init()` at the first invocation and again at the first
    /// one after `willTerminate()`; `assets` is the library it sees, `destinations` how the URLs it builds reach the
    /// server under test. `folder` (the system's journal folder) keeps what outlives a process: the enabled flag,
    /// the app's group containers (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, which then
    /// answers with this host's) and the log of the extension's conduct (`ExtensionConduct`); nil keeps the flag
    /// in memory and records nothing. `tokens` are the run's bearer tokens, which the extension gets from
    /// `SquallCredentials` as an app's extension gets its app's.
    public init(
        _ type: any PHBackgroundResourceUploadJobExtension.Type, assets: any AssetLibrary,
        destinations: DestinationRule, folder: String? = nil, tokens: (any TokenSource)? = nil
    ) throws {
        binding = try LibraryBinding(assets: assets, destinations: destinations, folder: folder, tokens: tokens)
        self.type = type
        instance = Mutex(nil)
        if let folder { AppGroupContainers.root.withLock { $0 = folder + "/app-groups" } }
    }

    /// Whether the extension is enabled (`PHPhotoLibrary.uploadJobExtensionEnabled`).
    public var isEnabled: Bool { binding.enabled }

    /// Enables or disables the extension, as the host app would (`setUploadJobExtensionEnabled(_:)`).
    public func setEnabled(_ enabled: Bool) throws {
        try binding.setEnabled(enabled)
    }

    public func processJobs(_ context: ExtensionContext) -> ProcessJobsResult {
        guard binding.enabled else {
            // The system stops a disabled extension's uploads (model choice, as the built-in policy does):
            // registered and pending jobs are cancelled; finished ones wait for it to be enabled again.
            _ = try? context.performChanges { block in
                for job in block.fetch(.process) { try block.cancel(job.localID) }
            }
            return .completed
        }
        let type = self.type
        let (running, fresh) = instance.withLock { current in
            guard let current else {
                let launched = ExtensionInstance(type.init())
                current = launched
                return (launched, true)
            }
            return (current, false)
        }
        binding.enter(context, fresh: fresh)
        defer { binding.leave() }
        switch running.run(binding, { await $0.processJobs() }) {
        case nil: return .failure
        case .completed: return .completed
        case .processing: return .processing
        case .failure: return .failure
        }
    }

    /// How long the system waits for `willTerminate()` before it stops the transfers anyway (model choice: the
    /// seed gives no figure; an extension's clean-up is short).
    public static let terminationGrace = Duration.seconds(5)

    public func willTerminate() {
        guard
            let running = instance.withLock({ current in
                defer { current = nil }
                return current
            })
        else { return }
        running.run(binding, terminating: true, waitingAtMost: Self.terminationGrace) { await $0.willTerminate() }
        binding.markTerminated()
    }
}

/// The app's extension object. The system calls it from its own threads, `willTerminate()` concurrently with
/// `processJobs()`, as PhotoKit does: the extension is written for that (the seed's `Atomic<Bool>` flag), which
/// the compiler cannot see in a type that is not `Sendable`.
private final class ExtensionInstance: @unchecked Sendable {
    private let object: any PHBackgroundResourceUploadJobExtension
    /// `processJobs()` on one thread, `willTerminate()` on another: termination must reach an invocation that is
    /// busy, not wait for it.
    private let processing = ExtensionExecutor()
    private let terminating = ExtensionExecutor()

    init(_ object: any PHBackgroundResourceUploadJobExtension) {
        self.object = object
    }

    /// Runs `call` on the extension as a task on the extension's own thread (`ExtensionExecutor`) with `binding`
    /// as its library, and waits for its result on this thread (nil when `waitingAtMost` passed first).
    @discardableResult
    func run<Result: Sendable>(
        _ binding: LibraryBinding, terminating: Bool = false, waitingAtMost limit: Duration? = nil,
        _ call: @escaping @Sendable (any PHBackgroundResourceUploadJobExtension) async -> Result
    ) -> Result? {
        let executor = terminating ? self.terminating : processing
        let result = Mutex<Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached(executorPreference: executor) {
            let value = await LibraryBinding.$current.withValue(binding) { await call(self.object) }
            result.withLock { $0 = value }
            done.signal()
        }
        if let limit {
            let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
            guard done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return nil }
        } else {
            done.wait()
        }
        return result.withLock { $0 }
    }
}
