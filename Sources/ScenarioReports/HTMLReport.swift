import Scenario

/// The `--html` report and a bundle's `report.html`: one self-contained page (inline CSS and SVG, no script, nothing
/// fetched), readable with scripts off, in light and dark (`prefers-color-scheme`).
///
/// A summary (passed, failed, skipped, flaky; time; seed; shard), a key to the charts, and a row per scenario,
/// failures first; then for
/// each scenario its failing expectations (expected, observed, evidence) and a chart per asset
/// (`UploadTimeline`): x is the proxy's clock, y the upload offset; the bytes the client sent in each request (a
/// line), the offsets the server acknowledged (dots: 104, HEAD, final, 409), where the client resumed (triangles),
/// every fault fired on the asset's connections (a dashed line and its rule and action), every event (a solid
/// line), and below the plot each request as a span labelled with its method and status. Each chart has a text
/// alternative (its SVG title and description) and the same marks as a table. A passing scenario's charts are
/// folded (`<details>`).
///
/// The marks carry `data-` attributes (`data-offset`, `data-rule`, `data-action`, `data-method`, `data-status`,
/// `data-event`), so that a browser test can check them without reading pixels.
public enum HTMLReport {
    /// What the page says about the whole run beyond its scenarios.
    public struct Context: Sendable {
        /// The run's wall time; nil adds up the scenarios' durations.
        public var elapsed: Duration?
        /// `--seed`, when it replaced every scenario's seed.
        public var seed: UInt64?
        /// `--shard I/N`, when the run was one part of the catalog.
        public var shard: (index: Int, of: Int)?
        public var title: String

        public init(
            elapsed: Duration? = nil, seed: UInt64? = nil, shard: (index: Int, of: Int)? = nil,
            title: String = "Squall scenario report"
        ) {
            self.elapsed = elapsed
            self.seed = seed
            self.shard = shard
            self.title = title
        }
    }

    /// The page for single runs (one per scenario).
    public static func render(_ results: [ScenarioResult], context: Context = Context()) -> String {
        render(results.map { ScenarioRuns(runs: [$0]) }, context: context)
    }

    public static func render(_ scenarios: [ScenarioRuns], context: Context = Context()) -> String {
        let ordered = scenarios.enumerated().sorted { left, right in
            let (a, b) = (rank(left.element), rank(right.element))
            return a != b ? a < b : left.offset < right.offset
        }.map(\.element)
        let results = scenarios.map(\.representative)
        let counts = Outcome.counts(results)
        let flaky = scenarios.count { $0.flaky }
        let elapsed = context.elapsed ?? ReportText.total(results)
        var page = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(escape(context.title)): \(scenarios.count) scenarios, \(counts.failed) failed</title>
            <style>\(style)</style>
            </head>
            <body>
            <header>
            <h1>\(escape(context.title))</h1>

            """
        let verdict = counts.failed > 0 || flaky > 0 ? "failed" : "passed"
        page += "<p id=\"summary\" class=\"summary \(verdict)\">\(scenarios.count) scenarios: \(counts.passed) passed, "
        page +=
            "\(counts.failed) failed, \(counts.skipped) skipped, \(flaky) flaky in \(ReportText.seconds(elapsed))s</p>\n"
        page += "<dl class=\"facts\">"
        let facts: [(String, String)] = [
            ("scenarios", "\(scenarios.count)"), ("passed", "\(counts.passed)"), ("failed", "\(counts.failed)"),
            ("skipped", "\(counts.skipped)"), ("flaky", "\(flaky)"), ("time", ReportText.seconds(elapsed) + " s"),
            ("seed", context.seed.map(String.init) ?? "each scenario's own"),
            ("shard", context.shard.map { "\($0.index) of \($0.of)" } ?? "the whole catalog"),
        ]
        for (name, value) in facts {
            page += "<div><dt>\(name)</dt><dd data-fact=\"\(name)\">\(escape(value))</dd></div>"
        }
        page += "</dl>\n\(key)</header>\n<main>\n"
        page += summaryTable(ordered)
        for group in ordered {
            page += section(group)
        }
        page += "</main>\n</body>\n</html>\n"
        return page
    }

    /// Failed first, then flaky, then skipped, then passed.
    private static func rank(_ group: ScenarioRuns) -> Int {
        switch Outcome(group.representative) {
        case .failed: 0
        case _ where group.flaky: 1
        case .skipped: 2
        case .passed: 3
        }
    }

    private static func outcomeName(_ group: ScenarioRuns) -> String {
        switch Outcome(group.representative) {
        case .failed: "failed"
        case _ where group.flaky: "flaky"
        case .skipped: "skipped"
        case .passed: "passed"
        }
    }

    private static func summaryTable(_ ordered: [ScenarioRuns]) -> String {
        var table = """
            <table id="scenarios">
            <caption>Scenarios, failures first</caption>
            <thead><tr><th scope="col">scenario</th><th scope="col">outcome</th><th scope="col">time</th>\
            <th scope="col">seed</th><th scope="col">failing expectations</th></tr></thead>
            <tbody>

            """
        for group in ordered {
            let result = group.representative
            let outcome = outcomeName(group)
            let failing = result.verdicts.filter { $0.status == .failed }.map(\.key)
            var why = failing.joined(separator: ", ")
            if let reason = result.skipReason { why = "skipped: " + reason }
            if let error = result.error, failing.isEmpty { why = error }
            table += "<tr class=\"\(outcome)\" data-scenario=\"\(escape(result.name))\" data-outcome=\"\(outcome)\">"
            table += "<td><a href=\"#\(anchor(result.name))\">\(escape(result.name))</a></td>"
            table += "<td><span class=\"badge \(outcome)\">\(outcome)</span></td>"
            table += "<td>\(ReportText.seconds(result.duration)) s</td><td>\(result.seed)</td>"
            table += "<td>\(escape(why))</td></tr>\n"
        }
        return table + "</tbody>\n</table>\n"
    }

    private static func section(_ group: ScenarioRuns) -> String {
        let result = group.representative
        let outcome = outcomeName(group)
        var text = "<section id=\"\(anchor(result.name))\" class=\"scenario \(outcome)\" data-outcome=\"\(outcome)\">\n"
        text += "<h2>\(escape(result.name)) <span class=\"badge \(outcome)\">\(outcome)</span></h2>\n"
        if !result.description.isEmpty { text += "<p>\(escape(result.description))</p>\n" }
        var meta = ["seed \(result.seed)", "\(ReportText.seconds(result.duration)) s"]
        if let file = result.file { meta.append(file) }
        if group.runs.count > 1 {
            let failed = group.runs.count { !$0.passed }
            meta.append("\(group.runs.count) runs, \(failed) failed" + (group.flaky ? " (flaky)" : ""))
        }
        text += "<p class=\"meta\">\(escape(meta.joined(separator: " · ")))</p>\n"
        if let bundle = result.bundle { text += "<p class=\"meta\">bundle: <code>\(escape(bundle))</code></p>\n" }
        if let reason = result.skipReason { text += "<p class=\"skip\">Skipped: \(escape(reason))</p>\n" }
        if let error = result.error { text += "<p class=\"error\">Run error: \(escape(error))</p>\n" }
        let failing = result.verdicts.filter { $0.status == .failed }
        if !failing.isEmpty { text += verdictTable(failing) }
        var body = ""
        for timeline in result.uploadTimelines {
            body += figure(timeline, result: result)
        }
        body += eventList(result.eventTimeline)
        if result.uploadTimelines.isEmpty { body += "<p class=\"meta\">No upload request reached the proxy.</p>\n" }
        if outcome == "failed" {
            text += "<h3>Uploads</h3>\n" + body
        } else {
            text += "<details><summary>Uploads and events</summary>\n" + body + "</details>\n"
        }
        return text + "</section>\n"
    }

    private static func verdictTable(_ verdicts: [Verdict]) -> String {
        var table = """
            <table class="verdicts">
            <caption>Failing expectations</caption>
            <thead><tr><th scope="col">expectation</th><th scope="col">expected</th><th scope="col">observed</th>\
            <th scope="col">evidence</th></tr></thead>
            <tbody>

            """
        for verdict in verdicts {
            table += "<tr data-key=\"\(escape(verdict.key))\"><th scope=\"row\">\(escape(verdict.key))</th>"
            table += "<td class=\"expected\">\(escape(verdict.expected))</td>"
            table += "<td class=\"observed\">\(escape(verdict.observed))</td><td><ul>"
            for line in verdict.evidence {
                table += "<li>\(escape(line))</li>"
            }
            table += "</ul></td></tr>\n"
        }
        return table + "</tbody>\n</table>\n"
    }

    private static func eventList(_ events: [EventRecord]) -> String {
        guard !events.isEmpty else { return "" }
        var list = "<h4>Events</h4>\n<ul class=\"events\">\n"
        for event in events {
            let when = event.proxyMicroseconds.map { seconds($0) + " s" } ?? "never"
            let what = event.notPlayed.map { "never played: " + $0 } ?? event.did.joined(separator: "; ")
            list += "<li data-event=\"\(escape(event.event))\">\(escape(when)) \(escape(event.event)) "
            list += "(\(escape(event.trigger))): \(escape(what))</li>\n"
        }
        return list + "</ul>\n"
    }

    // MARK: - Text

    /// `&`, `<`, `>`, `"` and `'` as entities.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// An id made of the name's letters, digits and dashes.
    static func anchor(_ name: String) -> String {
        "s-" + String(name.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
    }

    static func seconds(_ micros: Int64) -> String {
        ReportText.seconds(.microseconds(micros), digits: 3)
    }

    static func format(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}
