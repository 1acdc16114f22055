import Scenario
import SquallCore
import Testing

@testable import ScenarioReports

/// The reports of `squall check-server`: the console table, the summary, JSON and JUnit (read back by junitparser).
struct ServerCheckReportTests {
    static let results: [ServerCheckResult] = [
        ServerCheckResult(
            name: "options", version: 6, checks: "OPTIONS answers 2xx with Upload-Limit", outcome: .passed,
            detail: "200 (Upload-Limit: min-size=0)", duration: .milliseconds(4)),
        ServerCheckResult(
            name: "append-wrong-offset", version: 6, checks: "PATCH at a wrong offset gets 409", outcome: .failed,
            detail: "404", expected: "HEAD to be answered 2xx at offset 32", duration: .milliseconds(12)),
        ServerCheckResult(
            name: "max-size", version: 6, checks: "a creation past max-size is refused", outcome: .skipped,
            detail: "the profile states no max-size (limits.max-size)"),
        ServerCheckResult(
            name: "options", version: 8, checks: "OPTIONS answers 2xx with Upload-Limit", outcome: .passed,
            detail: "200 <&\"'>", duration: .milliseconds(3)),
    ]

    @Test func oneTablePerVersionAndASummary() {
        #expect(
            ServerCheckReport.table(Self.results, color: false) == [
                "interop 6",
                "  options              PASS  200 (Upload-Limit: min-size=0)",
                "  append-wrong-offset  FAIL  expected HEAD to be answered 2xx at offset 32; got 404",
                "  max-size             SKIP  the profile states no max-size (limits.max-size)",
                "interop 8",
                "  options              PASS  200 <&\"'>",
            ])
        #expect(
            ServerCheckReport.summary(Self.results, elapsed: .milliseconds(1234))
                == "4 cases at interop 6, 8: 2 passed, 1 failed, 1 skipped in 1.23s")
        #expect(ServerCheckReport.row(Self.results[0], nameWidth: 3, color: true).contains("\u{1B}[32mPASS\u{1B}[0m"))
    }

    @Test func theJSONReportGroupsTheCasesByVersion() throws {
        let json = ServerCheckReport.json(Self.results, server: "http://127.0.0.1:1/upload", elapsed: .seconds(2))
        let report = try JSONValue.parse(json)
        #expect(report["reportVersion"] == .integer(1))
        #expect(report["server"] == .string("http://127.0.0.1:1/upload"))
        #expect(report["summary"]?["failed"] == .integer(1))
        #expect(report["summary"]?["skipped"] == .integer(1))
        guard case .array(let versions)? = report["versions"], case .array(let cases)? = versions.first?["cases"] else {
            Issue.record("no versions in \(json)")
            return
        }
        #expect(versions.map { $0["interop"] } == [.integer(6), .integer(8)])
        #expect(cases[1]["outcome"] == .string("failed"))
        #expect(cases[1]["expected"] == .string("HEAD to be answered 2xx at offset 32"))
        #expect(cases[0]["expected"] == .null)
        #expect(cases[1]["duration"] == .number(0.012))
    }

    @Test func junitparserReadsASuitePerVersionAndACasePerCase() throws {
        let lines = try JUnitReportTests.readBack(ServerCheckReport.junit(Self.results, elapsed: .seconds(2)))
        #expect(
            lines == [
                "suite check-server interop 6 3 1 0 1 0.016",
                "case options|check-server.interop-6|0.004|[]",
                "case append-wrong-offset|check-server.interop-6|0.012|[('Failure', 'expected HEAD to be answered 2xx "
                    + "at offset 32', 'PATCH at a wrong offset gets 409\\ngot: 404')]",
                "case max-size|check-server.interop-6|0.000|[('Skipped', 'the profile states no max-size "
                    + "(limits.max-size)', None)]",
                "suite check-server interop 8 1 0 0 0 0.003",
                "case options|check-server.interop-8|0.003|[]",
            ])
    }
}
