import Scenario
import SquallCore

/// The reports of `squall check-server`: a console table per interop version with a summary line, the JSON
/// report and the JUnit XML (one testcase per case per version), from the cases' `ServerCheckResult`s.
///
/// ```
/// interop 6
///   options                      PASS  200 with Upload-Limit: min-size=0
///   append-wrong-offset          FAIL  expected HEAD to answer 2xx at offset 32 (the upload kept); got 404
///   max-size                     SKIP  the profile states no max-size
/// 156 cases at interop 3, 4, 5, 6, 7, 8: 153 passed, 1 failed, 2 skipped in 9.41s
/// ```
public enum ServerCheckReport {
    /// The schema version of the JSON report.
    public static let version = 1

    /// One table per interop version, in the order the results came: each case's name, PASS, FAIL or SKIP, and
    /// what the server did (a failure: what was expected, then what the server did).
    public static func table(_ results: [ServerCheckResult], color: Bool) -> [String] {
        let width = results.map(\.name.count).max() ?? 0
        var lines: [String] = []
        for version in versions(results) {
            lines.append(header(version))
            for result in results where result.version == version {
                lines.append(row(result, nameWidth: width, color: color))
            }
        }
        return lines
    }

    /// The line that opens a version's table: `interop 6`.
    public static func header(_ version: Int) -> String {
        "interop \(ServerCheckResult.word(version))"
    }

    /// A case's line in its version's table, the name padded to `nameWidth`.
    public static func row(_ result: ServerCheckResult, nameWidth: Int, color: Bool) -> String {
        let name =
            result.name.count >= nameWidth
            ? result.name : result.name + String(repeating: " ", count: nameWidth - result.name.count)
        return "  \(name)  \(label(result.outcome, color: color))  \(text(result))"
    }

    /// `156 cases at interop 3, 4, 5, 6, 7, 8: 153 passed, 1 failed, 2 skipped in 9.41s`.
    public static func summary(_ results: [ServerCheckResult], elapsed: Duration) -> String {
        let (passed, failed, skipped) = counts(results)
        let at = versions(results).map(ServerCheckResult.word).joined(separator: ", ")
        let noun = results.count == 1 ? "case" : "cases"
        return "\(results.count) \(noun) at interop \(at): \(passed) passed, \(failed) failed, \(skipped) skipped "
            + "in \(ReportText.seconds(elapsed))s"
    }

    /// A case's detail as the table shows it.
    public static func text(_ result: ServerCheckResult) -> String {
        guard result.outcome == .failed, let expected = result.expected else { return result.detail }
        return "expected \(expected); got \(result.detail)"
    }

    /// The `--json` report:
    ///
    /// ```json
    /// {"reportVersion": 1, "server": "http://127.0.0.1:8080/upload",
    ///  "summary": {"cases": 156, "passed": 153, "failed": 1, "skipped": 2, "duration": 9.412},
    ///  "versions": [{"interop": 6, "cases": [{"name": "options", "checks": "…", "outcome": "passed",
    ///                                          "expected": null, "detail": "…", "duration": 0.004}]}]}
    /// ```
    public static func json(_ results: [ServerCheckResult], server: String, elapsed: Duration) -> String {
        let (passed, failed, skipped) = counts(results)
        let summary = JSONReport.object([
            ("cases", "\(results.count)"), ("passed", "\(passed)"), ("failed", "\(failed)"),
            ("skipped", "\(skipped)"), ("duration", seconds(elapsed)),
        ])
        let groups = versions(results).map { version in
            JSONReport.object([
                ("interop", Self.interopJSON(version)),
                ("cases", JSONReport.array(results.filter { $0.version == version }.map(caseObject))),
            ])
        }
        return JSONReport.object([
            ("reportVersion", "\(Self.version)"), ("server", JSONText.quoted(server)), ("summary", summary),
            ("versions", JSONReport.array(groups)),
        ]) + "\n"
    }

    /// A version in the JSON report: its number, or the string `"final"`.
    private static func interopJSON(_ version: Int) -> String {
        let word = ServerCheckResult.word(version)
        return Int(word) != nil ? word : JSONText.quoted(word)
    }

    /// The `--junit` report: a `<testsuite>` per interop version (`check-server interop 6`), a `<testcase>` per
    /// case (classname `check-server.interop-6`), `<failure message="expected …">` with what the server did,
    /// `<skipped message="why"/>`.
    public static func junit(_ results: [ServerCheckResult], elapsed: Duration) -> String {
        let (_, failed, skipped) = counts(results)
        let total = "tests=\"\(results.count)\" failures=\"\(failed)\" errors=\"0\" skipped=\"\(skipped)\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"check-server\" \(total) time=\"\(seconds(elapsed))\">\n"
        for version in versions(results) {
            let cases = results.filter { $0.version == version }
            let (_, suiteFailed, suiteSkipped) = counts(cases)
            let time = cases.reduce(Duration.zero) { $0 + $1.duration }
            xml +=
                "  <testsuite name=\"check-server interop \(ServerCheckResult.word(version))\" tests=\"\(cases.count)\" "
            xml += "failures=\"\(suiteFailed)\" errors=\"0\" skipped=\"\(suiteSkipped)\" time=\"\(seconds(time))\">\n"
            for result in cases { xml += testCase(result) }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    // MARK: - Pieces

    private static func testCase(_ result: ServerCheckResult) -> String {
        let head =
            "    <testcase name=\"\(XMLText.attribute(result.name))\" "
            + "classname=\"check-server.interop-\(result.versionWord)\" time=\"\(seconds(result.duration))\""
        switch result.outcome {
        case .passed:
            return head + "/>\n"
        case .skipped:
            return head + ">\n      <skipped message=\"\(XMLText.attribute(result.detail))\"/>\n    </testcase>\n"
        case .failed:
            let message = "expected \(result.expected ?? result.checks)"
            return head + ">\n      <failure message=\"\(XMLText.attribute(message))\" type=\"check\">"
                + XMLText.text("\(result.checks)\ngot: \(result.detail)") + "</failure>\n    </testcase>\n"
        }
    }

    private static func caseObject(_ result: ServerCheckResult) -> String {
        JSONReport.object([
            ("name", JSONText.quoted(result.name)), ("checks", JSONText.quoted(result.checks)),
            ("outcome", JSONText.quoted(result.outcome.rawValue)),
            ("expected", result.expected.map(JSONText.quoted) ?? "null"), ("detail", JSONText.quoted(result.detail)),
            ("duration", seconds(result.duration)),
        ])
    }

    private static func label(_ outcome: ServerCheckResult.Outcome, color: Bool) -> String {
        ReportText.label(passed: outcome == .passed, skipped: outcome == .skipped, color: color)
    }

    /// The versions of `results`, each once, in the order they first appear.
    private static func versions(_ results: [ServerCheckResult]) -> [Int] {
        var seen: [Int] = []
        for result in results where !seen.contains(result.version) { seen.append(result.version) }
        return seen
    }

    private static func counts(_ results: [ServerCheckResult]) -> (passed: Int, failed: Int, skipped: Int) {
        (
            results.count { $0.outcome == .passed }, results.count { $0.outcome == .failed },
            results.count { $0.outcome == .skipped }
        )
    }

    private static func seconds(_ duration: Duration) -> String {
        ReportText.seconds(duration, digits: 3)
    }

}
