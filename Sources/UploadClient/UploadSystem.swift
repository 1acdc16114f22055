import Dispatch
import Foundation
import JobJournal
import Synchronization
import UploadJobs

/// How the system half runs jobs and schedules the extension.
public struct UploadSystemConfiguration: Sendable {
    /// The in-flight and retry limits. Default `JobStoreConfiguration()`.
    public var jobs: JobStoreConfiguration
    /// Interop version, append size, CA, timeouts and automatic resumes of every transfer; each job's destination
    /// replaces its method and fields. Default `TransferConfiguration()`.
    public var transfer: TransferConfiguration
    /// Developer mode: no runtime limit per invocation and no backoff between invocations; the waits before
    /// automatic resumes and job retries are shortened (at most `TransferConfiguration.developerModeBackoffLimit`),
    /// not removed. Default false.
    public var developerMode: Bool
    /// How long one `processJobs` may run before the system calls `willTerminate`. Default 30 s.
    public var invocationRuntimeLimit: Duration
    /// The pause before the next invocation when the last one changed nothing and no transfer ended since:
    /// doubling from this, at most `invocationBackoffLimit`. Defaults 1 s and 60 s.
    public var invocationBackoff: Duration
    public var invocationBackoffLimit: Duration
    /// Invocations in a row that change nothing while no transfer runs before `run` gives up (a policy that makes
    /// no progress). Default 20.
    public var idleInvocationLimit: Int
    /// Monitoring mode (the seed's "the system keeps monitoring the library"): after `processJobs()` returns
    /// `completed` with no job held, `run` waits instead of returning, and a library change
    /// (`libraryChanged()`) wakes the extension again; `run` returns at `finishMonitoring()` or `terminate()`.
    /// Default false: `run` returns at the first such completion.
    public var monitorsLibrary = false

    public init(
        jobs: JobStoreConfiguration = JobStoreConfiguration(),
        transfer: TransferConfiguration = TransferConfiguration(),
        developerMode: Bool = false, invocationRuntimeLimit: Duration = .seconds(30),
        invocationBackoff: Duration = .seconds(1), invocationBackoffLimit: Duration = .seconds(60),
        idleInvocationLimit: Int = 20
    ) {
        self.jobs = jobs
        self.transfer = transfer
        self.developerMode = developerMode
        self.invocationRuntimeLimit = invocationRuntimeLimit
        self.invocationBackoff = invocationBackoff
        self.invocationBackoffLimit = invocationBackoffLimit
        self.idleInvocationLimit = idleInvocationLimit
    }
}

/// What the system tells an observer (the CLI's progress display, the harness).
public enum UploadSystemEvent: Sendable, Hashable {
    /// A transfer of the job began (`reconciling`: one left in flight by an earlier run, resumed from its
    /// stored upload resource).
    case transferStarted(JobID, assetID: String, size: Int64, reconciling: Bool)
    /// The server announced the job's upload resource (a 104's `Location`), now in the journal.
    case uploadResourceAnnounced(JobID, location: String)
    /// Content bytes of the job's file the server has been sent, counted from its current request's start.
    case progress(JobID, sent: Int64, size: Int64)
    /// Every byte is sent; waiting for the final response.
    case finalising(JobID)
    /// The job's request failed with `at` bytes sent, for `cause` (such as `networkConnectionLost`); the transfer
    /// asks the server for its offset and resumes.
    case interrupted(JobID, at: Int64, cause: TransferError.Code)
    /// The job's transfer resumed: its append starts at the server's offset `from`.
    case resumed(JobID, from: Int64)
    /// The job's transfer ended in `state` (succeeded or failed); a failure's `detail` says what happened (the
    /// address that refused, the certificate that did not verify).
    case transferEnded(JobID, state: JobState, error: JobError?, status: Int?, detail: String?)
    /// The extension returned.
    case invocation(number: Int, result: ProcessJobsResult)
    /// The extension's change block that created the job committed; told on the extension's thread before its
    /// `performChanges` returns (the harness's `at-jobs-created` events happen there).
    case jobCreated(JobID)
    /// Monitoring mode: the extension completed with no job held; the system waits for a library change.
    case settled
    /// An answer of the server to the job's transfer departs from the draft: the rule's code and a line such as
    /// `PATCH /upload/7 → 201: completion-field: …`.
    case serverDeviation(JobID, rule: String, line: String)
}

/// How `UploadSystem.run` ended.
public struct UploadSystemSummary: Sendable, Equatable {
    /// The last invocation's result.
    public var lastResult: ProcessJobsResult
    public var invocations: Int
    /// Why the run stopped before the extension completed (terminated, no progress), or nil.
    public var stoppedEarly: String?
}

/// The system's half of background uploads (the OS upload daemon on a phone): the durable job store, the
/// transfers of registered jobs (one thread each, resuming by themselves after a 104), the extension's
/// invocations with a runtime limit and backoff, and, on relaunch, the reconciliation of transfers an earlier run
/// left in flight.
///
/// Waits (all through the injected sleeper, all cut short by `terminate`):
/// - before automatic resume n of a transfer, and before retry n of a job (the extension called `retry`), the
///   transfer's `backoff(beforeAttempt: n)`: `backoffBase` × 2^(n−1), at most `backoffLimit` (at most 1 s in
///   developer mode, never zero unless `backoffBase` is);
/// - before the next invocation after one that changed nothing while no transfer runs, `invocationBackoff`
///   doubling to `invocationBackoffLimit` (none in developer mode).
///
/// `run()` blocks its thread until the extension reports `completed` with no job held, or the system is
/// terminated, or the extension stops making progress.
public final class UploadSystem: Sendable {
    public let configuration: UploadSystemConfiguration
    let journal: JobJournal
    let extensionHandler: any UploadExtension
    let clock: @Sendable () -> JobTime
    let sleeper: UploadTransfer.Sleeper
    let observer: @Sendable (UploadSystemEvent) -> Void
    let preflightCache = PreflightCache()
    /// The HTTP/2 connections the transfers share (`TransferConfiguration.http`).
    let connections = HTTP2Connections()
    let transfers = Mutex<[JobID: UploadTransfer]>([:])
    /// Signalled whenever a transfer ends or the system is terminated.
    let wake = DispatchSemaphore(value: 0)
    private let terminated = Flag()
    /// Monitoring mode's wake-ups: library changes not yet seen by an invocation, and the request to stop.
    private let monitoring = Mutex(MonitoringState())

    private struct MonitoringState {
        var changes = 0
        var finished = false
        var settled = false
    }
    /// The first error of a transfer thread (a journal commit that failed); `run` throws it.
    private let failure = Mutex<(any Error)?>(nil)

    /// Opens (or reopens, after a crash) the job journal in `journalFolder`.
    public init(
        journalFolder: String, configuration: UploadSystemConfiguration = UploadSystemConfiguration(),
        extension handler: any UploadExtension, clock: @escaping @Sendable () -> JobTime = UploadSystem.wallClock,
        sleeper: UploadTransfer.Sleeper? = nil,
        observer: @escaping @Sendable (UploadSystemEvent) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.journal = try JobJournal(folder: journalFolder, store: configuration.jobs)
        self.extensionHandler = handler
        self.clock = clock
        self.sleeper = sleeper ?? Self.sleep(until: terminated)
        self.observer = observer
    }

    /// A backoff sleep that ends early when the system is terminated (checked every 100 ms).
    private static func sleep(until flag: Flag) -> UploadTransfer.Sleeper {
        { duration in
            var left = duration
            while left > .zero && !flag.isSet {
                let slice = min(left, .milliseconds(100))
                UploadTransfer.sleep(slice)
                left -= slice
            }
        }
    }

    /// The job store as it is now.
    public var store: JobStore { journal.store }
    /// Every job's history.
    public var ledger: JobLedger { journal.ledger }

    /// Milliseconds since 1970.
    public static func wallClock() -> JobTime {
        JobTime(Date().timeIntervalSince1970 * 1000)
    }

    func now() -> JobTime { clock() }

    /// Stops the system as a phone would before killing the extension: `willTerminate`, every transfer aborted
    /// (their bytes stay on the server, resumable after a relaunch; nothing more is sent), and `run` returns.
    public func terminate() {
        terminated.set()
        extensionHandler.willTerminate()
        for transfer in transfers.withLock({ Array($0.values) }) { transfer.abort() }
        wake.signal()
    }

    /// Records the first failure of a transfer thread and stops the system; `run` then throws it.
    func fail(with error: any Error) {
        failure.withLock { if $0 == nil { $0 = error } }
        terminate()
    }

    var isTerminated: Bool { terminated.isSet }

    /// Monitoring mode: the library changed (assets added); the extension is invoked again.
    public func libraryChanged() {
        monitoring.withLock {
            $0.changes += 1
            // No longer settled from this moment: the change is the extension's to see first.
            $0.settled = false
        }
        wake.signal()
    }

    /// Monitoring mode: `run` returns once the extension has completed with no job held (at once if it has).
    public func finishMonitoring() {
        monitoring.withLock { $0.finished = true }
        wake.signal()
    }

    /// Monitoring mode: whether the system is waiting for a library change (nothing held, nothing running).
    public var isSettled: Bool { monitoring.withLock { $0.settled } }

    /// Runs until the extension completes with no job held (see the type's comment).
    public func run() throws -> UploadSystemSummary {
        // Transfers have ended when `schedule` returns: their shared connections go with them.
        defer { connections.close() }
        do {
            let summary = try schedule()
            if let error = failure.withLock({ $0 }) { throw error }
            return summary
        } catch {
            terminate()
            drainTransfers()
            throw failure.withLock { $0 } ?? error
        }
    }

    private func schedule() throws -> UploadSystemSummary {
        try reconcile()
        var invocations = 0
        var idle = 0
        var backoff = configuration.invocationBackoff
        while true {
            if isTerminated {
                drainTransfers()
                return summary(.processing, invocations, "terminated")
            }
            let before = journal.sequence
            monitoring.withLock { $0.changes = 0 }
            let result = invoke(number: invocations + 1)
            invocations += 1
            try startTransfers()
            let running = transfers.withLock { !$0.isEmpty }
            if result == .completed && !running && store.jobs.isEmpty {
                guard configuration.monitorsLibrary, waitForLibraryChange() else {
                    return summary(result, invocations, nil)
                }
                idle = 0
                backoff = configuration.invocationBackoff
                continue
            }
            if running {
                idle = 0
                backoff = configuration.invocationBackoff
                wake.wait()
                continue
            }
            if isTerminated { continue }
            if journal.sequence == before {
                idle += 1
                if idle >= configuration.idleInvocationLimit {
                    return summary(result, invocations, "the extension made no progress in \(idle) invocations")
                }
                if !configuration.developerMode {
                    sleeper(backoff)
                    backoff = min(backoff * 2, configuration.invocationBackoffLimit)
                }
            } else {
                idle = 0
                backoff = configuration.invocationBackoff
            }
        }
    }

    /// Monitoring mode: waits for a library change (true) or for `finishMonitoring()` or `terminate()` (false).
    private func waitForLibraryChange() -> Bool {
        let unseen = monitoring.withLock { state in
            state.settled = state.changes == 0
            return state.changes > 0
        }
        if unseen { return true }
        observer(.settled)
        defer { monitoring.withLock { $0.settled = false } }
        while true {
            let (changes, finished) = monitoring.withLock { ($0.changes, $0.finished) }
            // A change seen before the request to finish is still served.
            if changes > 0 { return true }
            if isTerminated || finished { return false }
            wake.wait()
        }
    }

    /// Closes the journal (a relaunch in the same process can then open it). Call after `run` returned.
    public func close() {
        journal.close()
    }

    /// Waits until every transfer thread has ended (they were cancelled: each ends within its timeouts).
    private func drainTransfers() {
        while transfers.withLock({ !$0.isEmpty }) { wake.wait() }
    }

    /// One `processJobs` call, with `willTerminate` after the runtime limit outside developer mode.
    private func invoke(number: Int) -> ProcessJobsResult {
        let finished = Flag()
        if !configuration.developerMode {
            let limit = configuration.invocationRuntimeLimit
            let handler = extensionHandler
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(limit)) {
                if !finished.isSet { handler.willTerminate() }
            }
        }
        let result = extensionHandler.processJobs(ExtensionContext(system: self))
        finished.set()
        observer(.invocation(number: number, result: result))
        return result
    }

    private func summary(_ result: ProcessJobsResult, _ invocations: Int, _ reason: String?) -> UploadSystemSummary {
        UploadSystemSummary(lastResult: result, invocations: invocations, stoppedEarly: reason)
    }

    static func interval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// A flag set once, read from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }

    func set() {
        value.store(true, ordering: .sequentiallyConsistent)
    }
}
