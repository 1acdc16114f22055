import Foundation
import Glibc
import SquallNet

/// A child `squall` process of a run (`squall server` for `restart-server`, `squall upload` for `kill-client`),
/// tracked by the run's stop from its start until it ended: SIGTERM when the run is stopped, SIGKILL on a second
/// signal.
final class ChildProcess: @unchecked Sendable {
    let process: Process
    private let stop: ProcessStop?
    private let registration: ProcessStop.Registration?

    /// Starts `process` (set up, not yet run) and tracks it as `what` (`squall server`).
    init(_ process: Process, what: String, stop: ProcessStop?) throws {
        try process.run()
        self.process = process
        self.stop = stop
        let running = Running(process: process)
        registration = stop?.track(child: process.processIdentifier, what: what) { running.value }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Waits until it exited; the stop then no longer tracks it.
    func waitUntilExit() {
        process.waitUntilExit()
        if let stop, let registration { stop.withdraw(registration) }
    }

    /// Sends `signal` while it runs, then waits until it exited.
    func end(with signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        waitUntilExit()
    }

    /// Whether the process runs, asked from the stop's thread (`Process.isRunning` reads one flag).
    private struct Running: @unchecked Sendable {
        let process: Process
        var value: Bool { process.isRunning }
    }
}
