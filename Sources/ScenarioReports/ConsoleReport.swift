import Scenario

/// The console's lines (DESIGN.md "Reports and artifacts"): one per scenario with verdict and time, the unmet
/// expectations of a failure, a progress line during long runs, and the closing summary. Returns text only;
/// the CLI prints it (and passes `color: false` under `NO_COLOR` or when stdout is not a terminal).
///
/// ```
/// PASS resume-after-reset 1.23s
/// FAIL retry-limit-exhaustion 0.87s
///   ✗ attempts: expected 4 per job, observed 3 per job
///       job-1 (photo): 3 attempts
///   events (run clock, from the client's start):
///     100.2ms  add-assets at 100ms: added burst-1 (131072 bytes) to the library
/// 40 scenarios: 39 passed, 1 failed in 52.1s
/// ```
public enum ConsoleReport {
    /// `PASS name 1.23s`, `FAIL name 1.23s`, `SKIP name: needs …` for a scenario not run, or `SKIP name 1.23s`
    /// when every verdict was skipped.
    public static func line(for result: ScenarioResult, color: Bool) -> String {
        let outcome = Outcome(result)
        let verdict = ReportText.label(passed: outcome == .passed, skipped: outcome == .skipped, color: color)
        if let reason = result.skipReason { return "\(verdict) \(result.name): \(reason)" }
        return "\(verdict) \(result.name) \(ReportText.seconds(result.duration))s"
    }

    /// For each failed verdict its key, expected, observed and evidence; then the runner's error and the debug
    /// bundle's path with the command that opens its capture, when there are. Empty for a passing result.
    public static func failureDetails(for result: ScenarioResult) -> [String] {
        var lines: [String] = []
        for verdict in result.verdicts where verdict.status == .failed {
            lines.append("  ✗ \(verdict.key): expected \(verdict.expected), observed \(verdict.observed)")
            lines += verdict.evidence.map { "      \($0)" }
        }
        if let error = result.error { lines.append("  error: \(error)") }
        if !result.passed, !result.eventTimeline.isEmpty {
            lines.append("  events (run clock, from the client's start):")
            lines += result.eventTimeline.map(eventLine)
        }
        if let bundle = result.bundle, !result.passed {
            lines.append("  bundle: \(bundle)")
            lines.append("  open:   \(DebugBundle.openCommands(folder: bundle)[0])")
        }
        return lines
    }

    /// `    100.2ms add-assets at 100ms: added …` for a played event, `    never   add-assets at 6s: why`.
    static func eventLine(_ record: EventRecord) -> String {
        guard let time = record.runMicroseconds else {
            return "    never    \(record.event) \(record.trigger): \(record.notPlayed ?? "still pending at the end")"
        }
        let milliseconds = ReportText.seconds(.microseconds(time) * 1000, digits: 1) + "ms"
        let padded = milliseconds + String(repeating: " ", count: max(0, 8 - milliseconds.count))
        return "    \(padded) \(record.event) \(record.trigger): \(record.did.joined(separator: "; "))"
    }

    /// `40 scenarios: 39 passed, 1 failed in 52.1s` (`, N skipped` before ` in` when any were); the time is
    /// `elapsed` when given, else the results' durations added up.
    public static func summary(_ results: [ScenarioResult], elapsed: Duration? = nil) -> String {
        let (passed, failed, skipped) = Outcome.counts(results)
        let noun = results.count == 1 ? "scenario" : "scenarios"
        let skippedText = skipped > 0 ? ", \(skipped) skipped" : ""
        let time = ReportText.seconds(elapsed ?? ReportText.total(results), digits: 1)
        return "\(results.count) \(noun): \(passed) passed, \(failed) failed\(skippedText) in \(time)s"
    }

    /// `[12/40] 30% 14.2s`: scenarios done of the total, and the time since the run began.
    public static func progress(done: Int, total: Int, elapsed: Duration) -> String {
        let percent = total > 0 ? done * 100 / total : 100
        return "[\(done)/\(total)] \(percent)% \(ReportText.seconds(elapsed, digits: 1))s"
    }
}
