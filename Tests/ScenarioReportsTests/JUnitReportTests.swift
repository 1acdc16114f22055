import Foundation
import Scenario
import SquallCore
import TestSupport
import Testing

@testable import ScenarioReports

/// The JUnit XML as a real consumer reads it: Python's junitparser (from PyPI, installed by Tools/setup.sh).
struct JUnitReportTests {
    /// What junitparser reads back: the suite's counts, then per test case its name, classname, time and result.
    static let reader = """
        import sys
        from junitparser import JUnitXml
        xml = JUnitXml.fromfile(sys.argv[1])
        for suite in xml:
            print(f"suite {suite.name} {suite.tests} {suite.failures} {suite.errors} {suite.skipped} {suite.time:.3f}")
            for case in suite:
                results = [(type(r).__name__, r.message, r.text) for r in case.result]
                print(f"case {case.name}|{case.classname}|{case.time:.3f}|{results!r}")
        """

    @Test func junitparserReadsTheRightCountsAndResults() throws {
        let lines = try Self.readBack(JUnitReport.render(ReportFixtures.all, suiteName: "squall & co"))
        #expect(lines.count == 5)
        #expect(lines.first == "suite squall & co 4 1 1 1 2.164")
        #expect(lines[1] == "case resume-after-reset|Scenarios.resume-after-reset|1.234|[]")
        let details =
            "  ✗ attempts: expected 4 per job, observed 3 per job\\n      job-1 (photo): 3 attempts\\n"
            + "  ✗ fault.stall: expected fired at least once, observed never fired\\n  bundle: /tmp/squall/retry-limit"
            + "\\n  open:   tshark -r /tmp/squall/retry-limit/decrypted.pcap -Y http"
        #expect(
            lines[2]
                == "case retry-limit|Scenarios.errors.retry-limit|0.870|[('Failure', '2 unmet expectations: attempts, "
                + "fault.stall', '\(details)')]")
        #expect(
            lines[3]
                == "case server-kill|squall & co|0.050|[('Error', 'could not start the server: address in use', "
                + "'  error: could not start the server: address in use')]")
        #expect(
            lines[4]
                == "case upstream-only|Scenarios.upstream-only|0.010|[('Skipped', 'every expectation was skipped', None)]"
        )
    }

    @Test func aScenarioNotRunIsSkippedWithWhatItNeeds() throws {
        let lines = try Self.readBack(JUnitReport.render([ReportFixtures.unmet], suiteName: "s"))
        #expect(lines.first == "suite s 1 0 0 1 0.000")
        #expect(
            lines.last
                == "case needs-auth|Scenarios.needs-auth|0.000|[('Skipped', "
                + #"'needs bearer-token auth (a profile\'s "auth")', None)]"#)
        #expect(
            ConsoleReport.line(for: ReportFixtures.unmet, color: false)
                == #"SKIP needs-auth: needs bearer-token auth (a profile's "auth")"#)
        #expect(
            ConsoleReport.summary([ReportFixtures.passing, ReportFixtures.unmet]).hasPrefix(
                "2 scenarios: 1 passed, 0 failed, 1 skipped"))
        let json = JSONReport.render([ReportFixtures.unmet])
        #expect(json.contains(#""outcome": "skipped", "skipReason": "needs bearer-token auth (a profile's \"auth\")""#))
    }

    @Test func markupAndForbiddenCharactersAreEscaped() throws {
        var result = ReportFixtures.failing
        result.name = "a<b>&\"c'\n\u{1}"
        result.verdicts[1].evidence = ["</failure><x>&amp;\u{0}"]
        let lines = try Self.readBack(JUnitReport.render([result], suiteName: "s"))
        #expect(lines.first == "suite s 1 1 0 0 0.870")
        let printed = lines.joined(separator: "\n")
        #expect(printed.contains("case a<b>&\"c'\n\u{FFFD}|"))
        #expect(printed.contains("</failure><x>&amp;\u{FFFD}"))
        #expect(XMLText.text("<&>\"") == "&lt;&amp;&gt;\"")
        #expect(XMLText.attribute("\"'\t\n") == "&quot;&apos;&#9;&#10;")
    }

    @Test(arguments: [
        ("Scenarios/a.json", "Scenarios.a"), ("./x/y/b.c.json", "x.y.b.c"), ("noext", "noext"), ("d.v1/f", "d.v1.f"),
    ])
    func classNamesComeFromTheFile(file: String, className: String) {
        var result = ReportFixtures.passing
        result.file = file
        #expect(JUnitReport.className(result, "suite") == className)
    }

    /// Writes `xml` to a temporary file, reads it with junitparser, and returns the lines it printed.
    static func readBack(_ xml: String) throws -> [String] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("junit-\(UUID().uuidString).xml").path
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try PythonTool.run(["-c", reader, path], needs: "junitparser")
        return output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}
