import Foundation
import Scenario
import TestSupport
import Testing

@testable import ScenarioReports

/// `--json` follows `Scenarios/report.schema.json`, checked by a real validator (Python's jsonschema,
/// Draft202012Validator, through Tools/report-check.py); reports that break it are refused (negative controls).
struct ReportSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let schema = root.appendingPathComponent("Scenarios/report.schema.json").path
    static let checker = root.appendingPathComponent("Tools/report-check.py").path

    /// Whether report-check.py accepts `report`, and what it printed.
    static func check(_ report: String) throws -> (Bool, String) {
        let file = NSTemporaryDirectory() + "squall-report-\(UUID().uuidString).json"
        try report.write(toFile: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        // The checker exits 1 for a report that does not follow the schema: wrap it so that is an answer.
        let script = """
            import subprocess, sys
            done = subprocess.run([sys.executable] + sys.argv[1:], capture_output=True, text=True)
            print(done.returncode)
            print(done.stdout + done.stderr)
            """
        let output = try PythonTool.run(["-c", script, checker, "--schema", schema, file], needs: "jsonschema")
        let lines = output.split(separator: "\n", maxSplits: 1)
        return (lines.first == "0", lines.count > 1 ? String(lines[1]) : "")
    }

    static let ledger = """
        {"jobs": [{"localID": "job-1", "assetID": "/a/photo", "type": "upload", "entries": [
          {"time": 1, "event": "state", "state": "registered"}, {"time": 2, "event": "attempt", "number": 1},
          {"time": 3, "event": "bytesSent", "offset": 0, "length": 10},
          {"time": 4, "event": "failed", "error": "networkConnectionLost", "status": null},
          {"time": 5, "event": "serverResourceID", "id": "abc"}]}]}
        """

    static func fixtures() -> [ScenarioRuns] {
        var passing = ReportFixtures.passing
        passing.ledgerJSON = ledger
        passing.eventTimeline = [
            EventRecord(
                index: 0, event: "add-assets", trigger: "at 100ms", runMicroseconds: 100_200,
                proxyMicroseconds: 130_000, did: ["added late-1 (10 bytes) to the library"]),
            EventRecord(index: 1, event: "switch-network", trigger: "at-progress 70%", notPlayed: "it never got there"),
        ]
        return [
            ScenarioRuns(runs: [passing, ReportFixtures.failing], flaky: true),
            ScenarioRuns(runs: [ReportFixtures.crashed]), ScenarioRuns(runs: [ReportFixtures.skipped]),
            ScenarioRuns(runs: [ReportFixtures.unmet]),
        ]
    }

    @Test func everyKindOfResultFollowsTheSchema() throws {
        let (valid, output) = try Self.check(JSONReport.render(Self.fixtures()))
        #expect(valid, "\(output)")
    }

    @Test func repeatedRunsAreAllKeptWithTheRepresentativeAndFlakiness() throws {
        let report = JSONReport.render(Self.fixtures())
        let json = try #require(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["flaky"] as? Int == 1)
        #expect(summary["runsPerScenario"] as? Int == 2)
        let first = try #require((json["scenarios"] as? [[String: Any]])?.first)
        #expect((first["runs"] as? [Any])?.count == 2)
        #expect(first["representativeRun"] as? Int == 2)
        #expect(first["outcome"] as? String == "failed")
        #expect(first["flaky"] as? Bool == true)
    }

    /// Negative controls: Swift's synthesized enum encoding, a missing version, an unknown ledger event and an
    /// event that played and also says why it did not are each refused.
    @Test(arguments: [
        (#""event": "state", "state": "registered""#, #""event": {"state": {"_0": "registered"}}"#),
        (#""reportVersion": 1"#, #""reportVersion": 2"#),
        (#""event": "attempt""#, #""event": "attempted""#),
        (#""notPlayed": null"#, #""notPlayed": "but it did""#),
    ])
    func aReportThatBreaksTheSchemaIsRefused(valid: String, broken: String) throws {
        let report = JSONReport.render(Self.fixtures())
        #expect(report.contains(valid))
        let (accepted, output) = try Self.check(report.replacingOccurrences(of: valid, with: broken))
        #expect(!accepted, "\(broken) was accepted")
        #expect(output.contains("does not follow"), "\(output)")
    }
}
