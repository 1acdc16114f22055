import Foundation
import SquallNet
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

    @Test func aMissingProgramIsAnErrorNamingIt() {
        #expect(throws: NetError.self) { try CommandRun(["/nonexistent/squall-command"], timeout: .seconds(1)) }
        do {
            _ = try CommandRun(["/nonexistent/squall-command"], timeout: .seconds(1))
        } catch {
            #expect("\(error)".contains("cannot run /nonexistent/squall-command"))
        }
    }
}
