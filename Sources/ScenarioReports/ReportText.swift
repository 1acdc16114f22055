import Scenario
import SquallCore

/// Wording shared by the reports: durations in seconds and what a result's outcome is.
public enum ReportText {
    /// `duration` in seconds with `digits` (0…18) decimals, rounded half up: `1.23`. Negative durations read 0.
    public static func seconds(_ duration: Duration, digits: Int = 2) -> String {
        DurationText.seconds(max(duration, .zero), digits: digits)
    }

    /// `PASS`, `FAIL` or `SKIP` in green, red or yellow when `color` is on.
    static func label(passed: Bool, skipped: Bool, color: Bool) -> String {
        let (label, code) = skipped ? ("SKIP", "33") : passed ? ("PASS", "32") : ("FAIL", "31")
        return color ? "\u{1B}[\(code)m\(label)\u{1B}[0m" : label
    }

    /// The total wall time of `results` when no elapsed time is given.
    static func total(_ results: [ScenarioResult]) -> Duration {
        results.reduce(.zero) { $0 + $1.duration }
    }
}

/// A result's outcome as the reports count it.
enum Outcome {
    case passed
    case failed
    /// Not run (the outside server cannot give what the scenario needs: `skipReason`), or passed with every
    /// verdict skipped: nothing was judged.
    case skipped

    init(_ result: ScenarioResult) {
        if result.skipReason != nil {
            self = .skipped
        } else if !result.passed {
            self = .failed
        } else if !result.verdicts.isEmpty && result.verdicts.allSatisfy({ $0.status == .skipped }) {
            self = .skipped
        } else {
            self = .passed
        }
    }

    /// Counts of passed, failed and skipped results.
    static func counts(_ results: [ScenarioResult]) -> (passed: Int, failed: Int, skipped: Int) {
        let outcomes = results.map(Outcome.init)
        return (outcomes.count { $0 == .passed }, outcomes.count { $0 == .failed }, outcomes.count { $0 == .skipped })
    }
}
