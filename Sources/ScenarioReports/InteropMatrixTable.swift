import Scenario

/// The table `squall run --interop-matrix` ends with: a row per scenario, a column per interop version, each cell
/// the verdict of the scenario's variant at that version (`name@version`), `·` where it does not apply.
///
/// ```
/// scenario                     3     4     5     6     7     8     9     10    final
/// reset-mid-creation           PASS  PASS  PASS  PASS  PASS  PASS  FAIL  PASS  ·
/// interop-6-sliced-responses   ·     ·     ·     PASS  ·     ·     ·     ·     ·
/// ```
public enum InteropMatrixTable {
    /// The lines of the table for `results`, rows in the order the scenarios first appear, columns oldest first.
    public static func lines(_ results: [ScenarioResult]) -> [String] {
        var rows: [String] = []
        var cells: [String: [String: String]] = [:]
        var columns: Set<String> = []
        for result in results {
            guard let (scenario, version) = split(result.name) else { continue }
            if cells[scenario] == nil { rows.append(scenario) }
            cells[scenario, default: [:]][version] = label(result)
            columns.insert(version)
        }
        let ordered = columns.sorted { order($0) < order($1) }
        let width = max(rows.map(\.count).max() ?? 0, "scenario".count)
        let cell = max(5, ordered.map(\.count).max() ?? 0)
        func row(_ first: String, _ rest: [String]) -> String {
            ([pad(first, width)] + rest.map { pad($0, cell) }).joined(separator: "  ").trimmingTrailingSpaces()
        }
        return [row("scenario", ordered)] + rows.map { name in row(name, ordered.map { cells[name]?[$0] ?? "·" }) }
    }

    /// The scenario and the version of a variant's name (`reset-mid-creation@6`); nil without one.
    public static func split(_ name: String) -> (scenario: String, version: String)? {
        guard let at = name.lastIndex(of: "@") else { return nil }
        return (String(name[..<at]), String(name[name.index(after: at)...]))
    }

    private static func label(_ result: ScenarioResult) -> String {
        if result.skipReason != nil { return "SKIP" }
        return result.passed ? "PASS" : "FAIL"
    }

    /// Versions by number, `final` after them.
    private static func order(_ version: String) -> Int {
        Int(version) ?? Int.max
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        String(reversed().drop { $0 == " " }.reversed())
    }
}
