import Dispatch
import Foundation
import Synchronization

/// The thread an extension's tasks run on. The system waits for `processJobs()` by blocking its own thread; if the
/// extension's task needed a thread of the shared cooperative pool, a system started from async code (a test, a
/// harness) would block one of those threads and could wait on itself. With its own executor the extension never
/// waits for the pool, whatever thread waits for it.
final class ExtensionExecutor: TaskExecutor {
    private let queue = JobQueue()

    init() {
        let queue = self.queue
        let thread = Thread { queue.serve() }
        thread.name = "squall-photos-extension"
        thread.start()
    }

    deinit {
        queue.finish()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job), on: asUnownedTaskExecutor())
    }
}

/// The jobs waiting for the executor's thread, which runs them in order until `finish`.
private final class JobQueue: Sendable {
    private struct State {
        var jobs: [(UnownedJob, UnownedTaskExecutor)] = []
        var finished = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    func push(_ job: UnownedJob, on executor: UnownedTaskExecutor) {
        state.withLock { $0.jobs.append((job, executor)) }
        available.signal()
    }

    func finish() {
        state.withLock { $0.finished = true }
        available.signal()
    }

    func serve() {
        while true {
            available.wait()
            let next = state.withLock { state -> (UnownedJob, UnownedTaskExecutor)?? in
                if !state.jobs.isEmpty { return state.jobs.removeFirst() }
                return state.finished ? .some(nil) : nil
            }
            switch next {
            case .some(.some(let (job, executor))): job.runSynchronously(on: executor)
            case .some(.none): return
            case .none: continue
            }
        }
    }
}
