import Foundation
import Scenario
import SquallCore

/// The `--json` report: every result in full — verdicts with evidence, the fault timeline, each job's ledger
/// (embedded as JSON, not as a string), the duration in seconds, the seed and the file — and a summary.
///
/// ```json
/// {"summary": {"scenarios": 2, "passed": 1, "failed": 1, "skipped": 0, "duration": 2.5},
///  "scenarios": [{"name": "…", "file": "Scenarios/….json", "description": "…", "seed": 7, "outcome": "failed",
///                 "duration": 1.234, "error": null, "bundle": null, "notes": [],
///                 "verdicts": [{"key": "attempts", "status": "failed", "expected": "…", "observed": "…",
///                               "evidence": ["…"]}],
///                 "faultTimeline": [{"timeMicroseconds": 412000, "rule": "…", "action": "reset",
///                                    "connection": 2, "offset": 1048576}],
///                 "ledger": {"jobs": […]}}]}
/// ```
///
/// Keys come out in the order shown; a ledger that is not valid JSON is kept as a string rather than lost.
public enum JSONReport {
    /// The report of `results`; durations add up unless `elapsed` gives the run's wall time.
    public static func render(_ results: [ScenarioResult], elapsed: Duration? = nil) -> String {
        let (passed, failed, skipped) = Outcome.counts(results)
        let summary = object([
            ("scenarios", "\(results.count)"), ("passed", "\(passed)"), ("failed", "\(failed)"),
            ("skipped", "\(skipped)"), ("duration", seconds(elapsed ?? ReportText.total(results))),
        ])
        return object([("summary", summary), ("scenarios", array(results.map(scenario)))]) + "\n"
    }

    private static func scenario(_ result: ScenarioResult) -> String {
        let outcome =
            switch Outcome(result) {
            case .passed: "passed"
            case .failed: "failed"
            case .skipped: "skipped"
            }
        return object([
            ("name", string(result.name)), ("file", result.file.map(string) ?? "null"),
            ("description", string(result.description)), ("seed", "\(result.seed)"), ("outcome", string(outcome)),
            ("duration", seconds(result.duration)), ("error", result.error.map(string) ?? "null"),
            ("bundle", result.bundle.map(string) ?? "null"), ("notes", array(result.notes.map(string))),
            ("verdicts", array(result.verdicts.map(verdict))),
            ("faultTimeline", array(result.faultTimeline.map(firing))), ("ledger", ledger(result.ledgerJSON)),
        ])
    }

    private static func verdict(_ verdict: Verdict) -> String {
        object([
            ("key", string(verdict.key)), ("status", string(verdict.status.rawValue)),
            ("expected", string(verdict.expected)), ("observed", string(verdict.observed)),
            ("evidence", array(verdict.evidence.map(string))),
        ])
    }

    private static func firing(_ firing: FaultFiring) -> String {
        object([
            ("timeMicroseconds", "\(firing.timeMicroseconds)"), ("rule", string(firing.rule)),
            ("action", string(firing.action)), ("connection", "\(firing.connection)"),
            ("offset", firing.offset.map { "\($0)" } ?? "null"),
        ])
    }

    /// The ledger's JSON as it is when it parses, else as a string; null when there is none.
    private static func ledger(_ json: String?) -> String {
        guard let json else { return "null" }
        let parses = (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) != nil
        return parses ? json.trimmingCharacters(in: .whitespacesAndNewlines) : string(json)
    }

    private static func seconds(_ duration: Duration) -> String {
        ReportText.seconds(duration, digits: 3)
    }

    private static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    private static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ", ") + "]"
    }

    /// A JSON string (RFC 8259 §7).
    static func string(_ text: String) -> String {
        JSONText.quoted(text)
    }
}
