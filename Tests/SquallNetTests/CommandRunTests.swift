import Foundation
import SquallNet
import Synchronization
import Testing

/// Commands a server profile runs (restart, expire tokens, print a token): status and output, bounded in time, and
/// never held by a process the command left behind.
struct CommandRunTests {
    @Test func statusAndBothOutputsComeBack() throws {
        let run = try CommandRun(["sh", "-c", "echo token-1; echo why >&2; exit 3"], timeout: .seconds(10))
        #expect(run.status == 3)
        #expect(run.output == "token-1\n")
        #expect(run.errors == "why\n")
        #expect(try CommandRun(["true"], timeout: .seconds(10)).status == 0)
    }

    @Test func aCommandPastItsTimeoutIsTerminated() throws {
        let started = ContinuousClock.now
        let run = try CommandRun(["sleep", "30"], timeout: .milliseconds(200))
        #expect(run.status == 128 + SIGTERM)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func aProcessLeftHoldingTheOutputDoesNotHoldTheRun() throws {
        let started = ContinuousClock.now
        // The background sleep keeps the pipes open after the shell exits, as a daemon a restart script starts
        // without redirecting its output would.
        let run = try CommandRun(["sh", "-c", "echo started; sleep 30 & exit 0"], timeout: .seconds(20))
        #expect(run.status == 0)
        #expect(run.output == "started\n")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// A profile's command (a token or restart script) is a child of the command running it: SIGTERM or SIGINT
    /// to that command stops it too, named in the stop's line, instead of leaving it to its own timeout.
    @Test func aStopEndsTheCommandAndNamesIt() throws {
        let folder = NSTemporaryDirectory() + "squall-command-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stop = ProcessStop(command: "squall run")
        let started = ContinuousClock.now
        let ended = DispatchSemaphore(value: 0)
        let status = Mutex<Int32?>(nil)
        // The readiness signal: the script has started (it wrote a line into a FIFO the test reads); nothing is timed.
        let fifo = folder + "/ready"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        defer { close(reader) }
        DispatchQueue.global().async {
            let run = try? CommandRun(
                ["sh", "-c", "echo ready > \(fifo); exec sleep 30"], timeout: .seconds(60), stop: stop)
            status.withLock { $0 = run?.status }
            ended.signal()
        }
        var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 20_000) == 1 else {
            Issue.record("the command never started")
            return
        }
        stop.request(.terminate)
        #expect(ended.wait(timeout: .now() + 20) == .success)
        #expect(status.withLock { $0 } == 128 + SIGTERM)
        #expect(ContinuousClock.now - started < .seconds(20), "ended by the stop, not by sleep 30")
        #expect(stop.summary.children.contains { $0.contains("command sh") })
    }

    /// Once the command ended, the stop no longer tracks it (its pid may be another process's by then).
    @Test func aFinishedCommandIsNoLongerTracked() throws {
        let stop = ProcessStop(command: "squall run")
        #expect(try CommandRun(["true"], timeout: .seconds(10), stop: stop).status == 0)
        stop.request(.terminate)
        #expect(stop.summary.children.isEmpty)
    }

    @Test func aMissingProgramIsAnErrorNamingIt() {
        #expect(throws: NetError.self) { try CommandRun(["/nonexistent/squall-command"], timeout: .seconds(1)) }
        do {
            _ = try CommandRun(["/nonexistent/squall-command"], timeout: .seconds(1))
        } catch {
            #expect("\(error)".contains("cannot run /nonexistent/squall-command"))
        }
    }
}
