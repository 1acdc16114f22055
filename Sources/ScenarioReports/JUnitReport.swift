import Scenario
import SquallCore

/// The `--junit` report: JUnit XML as CI systems read it — one `<testsuite>` with one `<testcase>` per scenario
/// (classname from the scenario's file, time in seconds); a `<failure>` with a message and the unmet
/// expectations for a failed one, an `<error>` when the run itself failed, `<skipped/>` when every verdict was
/// skipped; tests, failures, errors, skipped and time counted on `<testsuites>` and `<testsuite>`.
///
/// ```xml
/// <testsuite name="squall" tests="2" failures="1" errors="0" skipped="0" time="2.100">
///   <testcase name="retry-limit" classname="Scenarios.retry-limit" time="0.870">
///     <failure message="1 unmet expectation: attempts" type="expectation">…</failure>
///   </testcase>
/// ```
public enum JUnitReport {
    /// The XML document for `results` in one suite named `suiteName`.
    public static func render(_ results: [ScenarioResult], suiteName: String) -> String {
        let (_, failed, skipped) = Outcome.counts(results)
        let errors = results.count { $0.error != nil }
        let counts =
            "tests=\"\(results.count)\" failures=\"\(failed - errors)\" errors=\"\(errors)\" skipped=\"\(skipped)\" "
            + "time=\"\(ReportText.seconds(ReportText.total(results), digits: 3))\""
        let name = XMLText.attribute(suiteName)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"\(name)\" \(counts)>\n"
        xml += "  <testsuite name=\"\(name)\" \(counts)>\n"
        for result in results {
            xml += testCase(result, suiteName: suiteName)
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    private static func testCase(_ result: ScenarioResult, suiteName: String) -> String {
        let head =
            "    <testcase name=\"\(XMLText.attribute(result.name))\" classname=\"\(XMLText.attribute(className(result, suiteName)))\" "
            + "time=\"\(ReportText.seconds(result.duration, digits: 3))\""
        let details = XMLText.text(ConsoleReport.failureDetails(for: result).joined(separator: "\n"))
        if let error = result.error {
            return head + ">\n      <error message=\"\(XMLText.attribute(error))\" type=\"run\">\(details)</error>\n"
                + "    </testcase>\n"
        }
        switch Outcome(result) {
        case .passed:
            return head + "/>\n"
        case .skipped:
            let message = result.skipReason ?? "every expectation was skipped"
            return head + ">\n      <skipped message=\"\(XMLText.attribute(message))\"/>\n    </testcase>\n"
        case .failed:
            let keys = result.verdicts.filter { $0.status == .failed }.map(\.key)
            let noun = keys.count == 1 ? "expectation" : "expectations"
            let message = "\(keys.count) unmet \(noun): \(keys.joined(separator: ", "))"
            return head + ">\n      <failure message=\"\(XMLText.attribute(message))\" type=\"expectation\">\(details)"
                + "</failure>\n    </testcase>\n"
        }
    }

    /// The scenario's file without its extension, folders joined by dots (`Scenarios/net/drop.json` →
    /// `Scenarios.net.drop`); the suite's name when it has no file.
    static func className(_ result: ScenarioResult, _ suiteName: String) -> String {
        guard let file = result.file, !file.isEmpty else { return suiteName }
        var path = Substring(file)
        while path.hasPrefix("./") { path = path.dropFirst(2) }
        if let dot = path.lastIndex(of: "."), !path[dot...].contains("/") { path = path[..<dot] }
        return path.split(separator: "/").joined(separator: ".")
    }

}
