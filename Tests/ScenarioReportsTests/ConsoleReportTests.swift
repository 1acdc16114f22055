import Scenario
import Testing

@testable import ScenarioReports

/// The console's exact lines: per scenario, failure details, summary and progress.
struct ConsoleReportTests {
    @Test func oneLinePerScenarioWithVerdictAndTime() {
        #expect(ConsoleReport.line(for: ReportFixtures.passing, color: false) == "PASS resume-after-reset 1.23s")
        #expect(ConsoleReport.line(for: ReportFixtures.failing, color: false) == "FAIL retry-limit 0.87s")
        #expect(ConsoleReport.line(for: ReportFixtures.crashed, color: false) == "FAIL server-kill 0.05s")
        #expect(ConsoleReport.line(for: ReportFixtures.skipped, color: false) == "SKIP upstream-only 0.01s")
        #expect(
            ConsoleReport.line(for: ReportFixtures.passing, color: true)
                == "\u{1B}[32mPASS\u{1B}[0m resume-after-reset 1.23s")
        #expect(ConsoleReport.line(for: ReportFixtures.failing, color: true).hasPrefix("\u{1B}[31mFAIL\u{1B}[0m "))
    }

    @Test func failureDetailsListUnmetExpectationsTheErrorAndTheBundle() {
        #expect(
            ConsoleReport.failureDetails(for: ReportFixtures.failing) == [
                "  ✗ attempts: expected 4 per job, observed 3 per job",
                "      job-1 (photo): 3 attempts",
                "  ✗ fault.stall: expected fired at least once, observed never fired",
                "  bundle: /tmp/squall/retry-limit",
                "  open:   tshark -r /tmp/squall/retry-limit/decrypted.pcap -Y http",
            ])
        #expect(
            ConsoleReport.failureDetails(for: ReportFixtures.crashed) == [
                "  error: could not start the server: address in use"
            ])
        #expect(ConsoleReport.failureDetails(for: ReportFixtures.passing).isEmpty)
    }

    @Test func summaryCountsOutcomesAndTime() {
        #expect(
            ConsoleReport.summary(ReportFixtures.all) == "4 scenarios: 1 passed, 2 failed, 1 skipped in 2.2s")
        #expect(
            ConsoleReport.summary([ReportFixtures.passing], elapsed: .milliseconds(52_140))
                == "1 scenario: 1 passed, 0 failed in 52.1s")
        #expect(ConsoleReport.summary([]) == "0 scenarios: 0 passed, 0 failed in 0.0s")
    }

    @Test func progressShowsDoneTotalAndElapsed() {
        #expect(ConsoleReport.progress(done: 12, total: 40, elapsed: .milliseconds(14_249)) == "[12/40] 30% 14.2s")
        #expect(ConsoleReport.progress(done: 0, total: 0, elapsed: .zero) == "[0/0] 100% 0.0s")
    }

    @Test(arguments: [
        (Duration.milliseconds(1234), 2, "1.23"), (.milliseconds(1235), 2, "1.24"), (.milliseconds(5), 0, "0"),
        (.seconds(3), 3, "3.000"), (.milliseconds(-1), 1, "0.0"), (.milliseconds(999_999), 1, "1000.0"),
    ])
    func secondsRoundHalfUp(duration: Duration, digits: Int, text: String) {
        #expect(ReportText.seconds(duration, digits: digits) == text)
    }
}
