import Dispatch
import Foundation
import Glibc
import Synchronization

/// Takes SIGINT and SIGTERM for a `ProcessStop`: the first asks it to stop, a second (either signal, while the
/// stop is under way) abandons it and exits at once.
///
/// The signals are blocked for the thread that makes the watcher and for every thread it starts afterwards (they
/// inherit its mask), and taken synchronously with `sigtimedwait` on a thread of the watcher's own: no handler runs
/// inside an interrupted thread, so the stop's actions may take locks. Make it before starting any thread, or a
/// thread started earlier may get the signal and die of it. Child processes started through `CommandRun` get the
/// usual mask back; a child `squall` blocks the signals again itself.
public final class StopSignalWatcher: Sendable {
    private let stop: ProcessStop
    private let finished = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Starts watching for `stop`.
    public init(_ stop: ProcessStop) {
        self.stop = stop
        var set = StopSignal.set
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let thread = Thread { [self] in
            var set = StopSignal.set
            while !finished.load(ordering: .acquiring) {
                var wait = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                guard let signal = StopSignal(number: sigtimedwait(&set, nil, &wait)) else { continue }
                take(signal)
            }
            done.signal()
        }
        thread.name = "stop-signals"
        thread.start()
    }

    /// Stops watching once the command's work is over: a signal still pending asks for the stop (the command then
    /// reports it and exits with its status), then the signals are unblocked for the calling thread again.
    public func finish() {
        finished.store(true, ordering: .releasing)
        done.wait()
        var set = StopSignal.set
        var none = timespec(tv_sec: 0, tv_nsec: 0)
        while let signal = StopSignal(number: sigtimedwait(&set, nil, &none)) {
            if !stop.isRequested { stop.request(signal) }
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private func take(_ signal: StopSignal) {
        if stop.isRequested { stop.abandon(signal) }
        stop.request(signal)
    }
}
