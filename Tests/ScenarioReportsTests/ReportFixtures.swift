import Scenario

/// Results for the reports' tests: one passing, one failing with evidence and a bundle, one whose run failed,
/// and one with every verdict skipped.
enum ReportFixtures {
    static let passing = ScenarioResult(
        name: "resume-after-reset", file: "Scenarios/resume-after-reset.json", description: "resumes", seed: 7,
        duration: .milliseconds(1234),
        verdicts: [Verdict(key: "resumptions", status: .passed, expected: "≥ 1", observed: "1")],
        faultTimeline: [
            FaultFiring(timeMicroseconds: 412_000, rule: "reset-mid", action: "reset", connection: 2, offset: 1024)
        ],
        ledgerJSON: #"{"jobs": [{"localID": "job-1", "assetID": "/a/photo"}]}"#)

    static let failing = ScenarioResult(
        name: "retry-limit", file: "./Scenarios/errors/retry-limit.json", description: "three <attempts> & \"no\" more",
        seed: 3, duration: .milliseconds(870),
        verdicts: [
            Verdict(key: "jobs.failed", status: .passed, expected: "all (1)", observed: "1"),
            Verdict(
                key: "attempts", status: .failed, expected: "4 per job", observed: "3 per job",
                evidence: ["job-1 (photo): 3 attempts"]),
            Verdict(key: "fault.stall", status: .failed, expected: "fired at least once", observed: "never fired"),
        ],
        bundle: "/tmp/squall/retry-limit")

    static let crashed = ScenarioResult(
        name: "server-kill", file: nil, description: "", seed: 1, duration: .milliseconds(50), verdicts: [],
        error: "could not start the server: address in use")

    static let skipped = ScenarioResult(
        name: "upstream-only", file: "Scenarios/upstream-only.json", description: "", seed: 1,
        duration: .milliseconds(10),
        verdicts: [
            Verdict(key: "server-objects-intact", status: .skipped, expected: "true", observed: "not observable")
        ])

    /// Not run: the outside server cannot give what it needs.
    static let unmet: ScenarioResult = {
        var result = ScenarioResult(
            name: "needs-auth", file: "Scenarios/needs-auth.json", description: "", seed: 1, duration: .zero,
            verdicts: [])
        result.skipReason = "needs bearer-token auth (a profile's \"auth\")"
        return result
    }()

    static let all = [passing, failing, crashed, skipped]
}
