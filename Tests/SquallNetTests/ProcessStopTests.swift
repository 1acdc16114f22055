import Foundation
import Glibc
import SquallNet
import Synchronization
import Testing

/// `ProcessStop` without signals (the tests call `request`): actions, children, temporary folders and the line.
/// The signals themselves are `StopSignalTests` (SquallCLITests), on the built binary.
struct ProcessStopTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    /// A `sleep 60` child with the usual signal mask and dispositions (a test runs on a thread that blocks most
    /// signals, and Foundation's `Process` passes that mask on).
    final class Sleeper {
        let pid: pid_t
        private var status: Int32?

        init() throws {
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGTERM)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let words: [String] = ["sleep", "60"]
            let argv = words.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, "/bin/sleep", nil, &attributes, argv, environ)
            guard spawned == 0 else { throw NetError(.spawn, errno: spawned, "posix_spawn /bin/sleep") }
            self.pid = pid
        }

        deinit {
            if status == nil {
                kill(pid, SIGKILL)
                _ = wait()
            }
        }

        /// Waits for its end; the signal that ended it, nil when it exited.
        @discardableResult
        func wait() -> Int32? {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            status = raw
            return (raw & 0x7f) == 0 ? nil : raw & 0x7f
        }

        /// Whether it still runs (not waited for yet, and no wait would return).
        var isRunning: Bool {
            var raw: Int32 = 0
            return status == nil && waitpid(pid, &raw, WNOHANG) == 0
        }
    }

    @Test func eachActionRunsOnceAndOnlyTheFirstRequestCounts() {
        let stop = ProcessStop(command: "squall test")
        let (first, withdrawn, late) = (Counter(), Counter(), Counter())
        stop.whenRequested { first.add() }
        stop.withdraw(stop.whenRequested { withdrawn.add() })
        #expect(!stop.isRequested)
        stop.request(.terminate)
        stop.request(.interrupt)
        stop.waitUntilRequested()
        stop.whenRequested { late.add() }
        #expect(stop.signal == .terminate)
        #expect((first.count, withdrawn.count, late.count) == (1, 0, 1))
    }

    /// Tracked children still running get SIGTERM and are named; a withdrawn one (it ended, as far as its owner
    /// knows) is left alone.
    @Test func aRequestStopsTrackedChildren() throws {
        let stop = ProcessStop(command: "squall test")
        let tracked = try Sleeper()
        let other = try Sleeper()
        let trackedPID = tracked.pid
        _ = stop.track(child: trackedPID, what: "sleep") { kill(trackedPID, 0) == 0 }
        stop.withdraw(stop.track(child: other.pid, what: "sleep") { true })
        stop.request(.interrupt)
        #expect(tracked.wait() == SIGTERM)
        #expect(other.isRunning)
        #expect(stop.summary.children == ["child sleep pid \(trackedPID)"])
    }

    /// A child tracked after the stop was asked for is stopped at once.
    @Test func aChildTrackedAfterTheRequestIsStoppedAtOnce() throws {
        let stop = ProcessStop(command: "squall test")
        stop.request(.terminate)
        let late = try Sleeper()
        _ = stop.track(child: late.pid, what: "sleep") { true }
        #expect(late.wait() == SIGTERM)
    }

    /// Only folders removed after the request are in the line (a run removes one per scenario long before).
    @Test func theLineNamesWhatWasStoppedRemovedAndKept() throws {
        let stop = ProcessStop(command: "squall test")
        let before = try TemporaryFolder(prefix: "squall-stop-test-", what: "earlier", stop: stop)
        let after = try TemporaryFolder(prefix: "squall-stop-test-", what: "temporary store", stop: stop)
        before.remove()
        stop.request(.interrupt)
        stop.noteStopped("the server at http://127.0.0.1:1")
        after.remove()
        after.remove()
        stop.noteKept("the log /var/log/x")
        #expect(!FileManager.default.fileExists(atPath: after.path))
        #expect(
            stop.summary.line(command: stop.command)
                == "squall test: SIGINT: stopped the server at http://127.0.0.1:1; removed \(after.path) "
                + "(temporary store); kept the log /var/log/x")
        var empty = StopSummary()
        empty.signal = .terminate
        #expect(empty.line(command: "squall x") == "squall x: SIGTERM: nothing was running; nothing to remove")
    }

    @Test func signalsMapToTheConventionalStatuses() {
        #expect(StopSignal(number: SIGINT)?.exitStatus == 130)
        #expect(StopSignal(number: SIGTERM)?.exitStatus == 143)
        #expect(StopSignal(number: SIGHUP) == nil)
    }
}
