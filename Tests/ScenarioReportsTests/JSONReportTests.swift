import Foundation
import Scenario
import Testing

@testable import ScenarioReports

/// The JSON report parses (JSONSerialization) and carries every field, with the ledger as JSON.
struct JSONReportTests {
    private func parse(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func everyResultWithVerdictsTimelineAndLedger() throws {
        let report = try parse(JSONReport.render(ReportFixtures.all))
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["scenarios"] as? Int == 4)
        #expect(summary["failed"] as? Int == 2)
        #expect(summary["skipped"] as? Int == 1)
        let scenarios = try #require(report["scenarios"] as? [[String: Any]])
        #expect(scenarios.map { $0["name"] as? String } == ReportFixtures.all.map(\.name))
        #expect(report["reportVersion"] as? Int == 1)
        let first = scenarios[0]
        #expect(first["seed"] as? Int == 7)
        #expect(first["file"] as? String == "Scenarios/resume-after-reset.json")
        #expect(first["outcome"] as? String == "passed")
        #expect(first["flaky"] as? Bool == false)
        let run = try #require((first["runs"] as? [[String: Any]])?.first)
        #expect(run["duration"] as? Double == 1.234)
        #expect(run["run"] as? Int == 1)
        let ledger = try #require(run["ledger"] as? [String: Any])
        let jobs = try #require(ledger["jobs"] as? [[String: Any]])
        #expect(jobs.first?["localID"] as? String == "job-1")
        let firing = try #require((run["faultTimeline"] as? [[String: Any]])?.first)
        #expect(firing["timeMicroseconds"] as? Int == 412_000)
        #expect(firing["offset"] as? Int == 1024)
        #expect(scenarios[1]["description"] as? String == "three <attempts> & \"no\" more")
        let runs = scenarios.map { ($0["runs"] as? [[String: Any]])?.first ?? [:] }
        let failing = runs[1]
        let verdicts = try #require(failing["verdicts"] as? [[String: Any]])
        #expect(verdicts.map { $0["status"] as? String } == ["passed", "failed", "failed"])
        #expect(verdicts[1]["evidence"] as? [String] == ["job-1 (photo): 3 attempts"])
        #expect(failing["bundle"] as? String == "/tmp/squall/retry-limit")
        #expect(runs[2]["error"] as? String == "could not start the server: address in use")
        #expect(scenarios[2]["file"] is NSNull)
        #expect(runs[2]["ledger"] is NSNull)
    }

    @Test func aLedgerThatIsNotJSONIsKeptAsAString() throws {
        var result = ReportFixtures.passing
        result.ledgerJSON = "{not json"
        let scenarios = try #require(try parse(JSONReport.render([result]))["scenarios"] as? [[String: Any]])
        let run = try #require((scenarios[0]["runs"] as? [[String: Any]])?.first)
        #expect(run["ledger"] as? String == "{not json")
    }

    @Test func stringsEscapeQuotesBackslashesAndControls() throws {
        #expect(JSONReport.string("a\"b\\c\n\u{1}é") == #""a\"b\\c\n\u0001é""#)
        let decoded = try JSONSerialization.jsonObject(
            with: Data(JSONReport.string("x\u{1F}\t\"").utf8), options: [.fragmentsAllowed])
        #expect(decoded as? String == "x\u{1F}\t\"")
    }
}
