import Scenario
import SquallCore

/// One scenario's runs as the reports group them: every run (one, or N with `--repeat N`), which run speaks
/// for the scenario (the first failing one, else the first), and whether the verdicts differed between runs.
public struct ScenarioRuns: Sendable, Hashable {
    public var runs: [ScenarioResult]
    public var flaky: Bool

    /// `runs` must not be empty.
    public init(runs: [ScenarioResult], flaky: Bool = false) {
        precondition(!runs.isEmpty, "a scenario has at least one run")
        self.runs = runs
        self.flaky = flaky
    }

    /// The index (from 0) of the run that speaks for the scenario: the first failing, else the first.
    public var representativeIndex: Int {
        runs.firstIndex { !$0.passed } ?? 0
    }

    /// The run that speaks for the scenario.
    public var representative: ScenarioResult { runs[representativeIndex] }
}

/// The `--json` report, version 1 of the schema in `Scenarios/report.schema.json` (JSON Schema draft 2020-12):
/// every run of every scenario in full — verdicts with evidence, the fault and event timelines, each job's ledger
/// (embedded as JSON) — and a summary. Names are plain camelCase; nothing is an encoding artifact.
///
/// ```json
/// {"reportVersion": 1,
///  "summary": {"scenarios": 2, "passed": 1, "failed": 1, "skipped": 0, "flaky": 0, "runsPerScenario": 1,
///              "duration": 2.5},
///  "scenarios": [{"name": "…", "file": "Scenarios/….json", "description": "…", "seed": 7, "outcome": "failed",
///                 "flaky": false, "representativeRun": 1,
///                 "runs": [{"run": 1, "outcome": "failed", "duration": 1.234, "error": null, "bundle": null,
///                           "notes": [],
///                           "verdicts": [{"key": "attempts", "status": "failed", "expected": "…",
///                                         "observed": "…", "evidence": ["…"]}],
///                           "faultTimeline": [{"timeMicroseconds": 412300, "decidedMicroseconds": 412000,
///                                              "rule": "…", "action": "reset", "connection": 2,
///                                              "offset": 1048576}],
///                           "eventTimeline": [{"index": 0, "event": "add-assets", "trigger": "at 100ms",
///                                              "played": true, "runMicroseconds": 100212,
///                                              "proxyMicroseconds": 131007, "did": ["…"], "notPlayed": null}],
///                           "ledger": {"jobs": […]}}]}]}
/// ```
///
/// Keys come out in the order shown; a ledger that is not valid JSON is kept as a string rather than lost.
public enum JSONReport {
    /// The schema version this renderer writes.
    public static let version = 1

    /// The report of single runs (one per scenario).
    public static func render(_ results: [ScenarioResult], elapsed: Duration? = nil) -> String {
        render(results.map { ScenarioRuns(runs: [$0]) }, elapsed: elapsed)
    }

    /// The report of `scenarios`; durations add up unless `elapsed` gives the run's wall time.
    public static func render(_ scenarios: [ScenarioRuns], elapsed: Duration? = nil) -> String {
        let representatives = scenarios.map(\.representative)
        let (passed, failed, skipped) = Outcome.counts(representatives)
        let allRuns = scenarios.flatMap(\.runs)
        let summary = object([
            ("scenarios", "\(scenarios.count)"), ("passed", "\(passed)"), ("failed", "\(failed)"),
            ("skipped", "\(skipped)"), ("flaky", "\(scenarios.count(where: \.flaky))"),
            ("runsPerScenario", "\(scenarios.map(\.runs.count).max() ?? 1)"),
            ("duration", seconds(elapsed ?? ReportText.total(allRuns))),
        ])
        return object([
            ("reportVersion", "\(version)"), ("summary", summary), ("scenarios", array(scenarios.map(scenario))),
        ]) + "\n"
    }

    private static func scenario(_ group: ScenarioRuns) -> String {
        let first = group.representative
        return object([
            ("name", string(first.name)), ("file", first.file.map(string) ?? "null"),
            ("description", string(first.description)), ("seed", "\(first.seed)"),
            ("outcome", string(outcome(first))), ("flaky", group.flaky ? "true" : "false"),
            ("representativeRun", "\(group.representativeIndex + 1)"),
            ("runs", array(group.runs.enumerated().map { run($0.element, number: $0.offset + 1) })),
        ])
    }

    private static func run(_ result: ScenarioResult, number: Int) -> String {
        object([
            ("run", "\(number)"), ("outcome", string(outcome(result))),
            ("skipReason", result.skipReason.map(string) ?? "null"), ("duration", seconds(result.duration)),
            ("error", result.error.map(string) ?? "null"), ("bundle", result.bundle.map(string) ?? "null"),
            ("notes", array(result.notes.map(string))), ("verdicts", array(result.verdicts.map(verdict))),
            ("faultTimeline", array(result.faultTimeline.map(firing))),
            ("eventTimeline", array(result.eventTimeline.map(event))), ("ledger", ledger(result.ledgerJSON)),
        ])
    }

    private static func outcome(_ result: ScenarioResult) -> String {
        switch Outcome(result) {
        case .passed: "passed"
        case .failed: "failed"
        case .skipped: "skipped"
        }
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
            ("timeMicroseconds", "\(firing.timeMicroseconds)"),
            ("decidedMicroseconds", firing.decidedMicroseconds.map { "\($0)" } ?? "null"),
            ("rule", string(firing.rule)),
            ("action", string(firing.action)), ("connection", "\(firing.connection)"),
            ("offset", firing.offset.map { "\($0)" } ?? "null"),
        ])
    }

    private static func event(_ record: EventRecord) -> String {
        object([
            ("index", "\(record.index)"), ("event", string(record.event)), ("trigger", string(record.trigger)),
            ("played", record.played ? "true" : "false"),
            ("runMicroseconds", record.runMicroseconds.map { "\($0)" } ?? "null"),
            ("proxyMicroseconds", record.proxyMicroseconds.map { "\($0)" } ?? "null"),
            ("did", array(record.did.map(string))), ("notPlayed", record.notPlayed.map(string) ?? "null"),
        ])
    }

    /// The ledger's JSON as it is when it parses, else as a string; null when there is none.
    private static func ledger(_ json: String?) -> String {
        guard let json else { return "null" }
        guard (try? JSONValue.parse(json)) != nil else { return string(json) }
        let blank: Set<Character> = [" ", "\t", "\n", "\r"]
        return String(json.drop(while: blank.contains).reversed().drop(while: blank.contains).reversed())
    }

    private static func seconds(_ duration: Duration) -> String {
        ReportText.seconds(duration, digits: 3)
    }

    /// A JSON object of members already encoded, keys in the order given.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(string($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A JSON array of elements already encoded.
    static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ", ") + "]"
    }

    /// A JSON string (RFC 8259 §7).
    static func string(_ text: String) -> String {
        JSONText.quoted(text)
    }
}
