import Scenario
import SquallCore

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

    // MARK: - The chart

    private struct Frame {
        var left = 90.0
        var right = 890.0
        var top = 24.0
        var bottom = 214.0
        var t0: Int64
        var t1: Int64
        var top0: Int64

        func x(_ micros: Int64) -> Double {
            left + (right - left) * Double(micros - t0) / Double(max(1, t1 - t0))
        }

        func y(_ offset: Int64) -> Double {
            bottom - (bottom - top) * Double(offset) / Double(max(1, top0))
        }
    }

    private static func figure(_ timeline: UploadTimeline, result: ScenarioResult) -> String {
        let connections = timeline.connections
        let faults = result.faultTimeline.filter { connections.contains($0.connection) }
        var times = timeline.requests.flatMap { [$0.startMicroseconds, $0.endMicroseconds] }
        times += faults.map(\.timeMicroseconds) + timeline.acknowledged.map(\.microseconds)
        times += timeline.requests.flatMap { $0.forwarded.map(\.microseconds) }
        let first = times.min() ?? 0
        let last = max(times.max() ?? 1, first + 1)
        let pad = max(1, (last - first) / 50)
        let events = result.eventTimeline.filter { event in
            event.proxyMicroseconds.map { $0 >= first - pad && $0 <= last + pad } ?? false
        }
        var offsets = timeline.acknowledged.map(\.offset) + timeline.resumes.map(\.offset)
        offsets += timeline.requests.flatMap { $0.sent.map(\.offset) + $0.forwarded.map(\.offset) }
        let top = max(timeline.length ?? 0, offsets.max() ?? 0, 1)
        let frame = Frame(t0: first - pad, t1: last + pad, top0: top)
        // A span takes at least its label's width, so that no label runs into the next span.
        let lanes = Self.lanes(
            timeline.requests.map { request in
                let start = frame.x(request.startMicroseconds)
                return (start, max(frame.x(request.endMicroseconds), start + Double(request.label.count) * 6.5 + 8))
            })
        let laneCount = (lanes.max() ?? -1) + 1
        let height = Int(frame.bottom) + 34 + laneCount * 20
        let id = anchor(result.name) + "-" + anchor(timeline.name)
        let description = Self.description(timeline, faults: faults, events: events)

        var svg = "<svg class=\"chart\" viewBox=\"0 0 900 \(height)\" width=\"900\" height=\"\(height)\" role=\"img\" "
        svg += "aria-labelledby=\"\(id)-title \(id)-desc\" data-asset=\"\(escape(timeline.name))\">\n"
        svg += "<title id=\"\(id)-title\">Upload of \(escape(timeline.name)): offset over time</title>\n"
        svg += "<desc id=\"\(id)-desc\">\(escape(description))</desc>\n"
        svg += axes(frame)
        for event in events {
            guard let time = event.proxyMicroseconds else { continue }
            let x = format(frame.x(time))
            svg += "<g class=\"event\" data-event=\"\(escape(event.event))\" data-time=\"\(time)\">"
            svg += "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(format(frame.top - 10))\" y2=\"\(format(frame.bottom))\"/>"
            svg +=
                "<text x=\"\(x)\" y=\"\(format(frame.top - 12))\" text-anchor=\"middle\">\(escape(event.event))</text>"
            svg += "<title>\(escape(event.event)) (\(escape(event.trigger))) at \(seconds(time)) s</title></g>\n"
        }
        for request in timeline.requests {
            svg += polyline(request, request.sent, kind: "sent", what: "sent", frame)
            svg += polyline(request, request.forwarded, kind: "forwarded", what: "forwarded to the server", frame)
        }
        for mark in timeline.resumes {
            let (x, y) = (frame.x(mark.microseconds), frame.y(mark.offset))
            svg += "<g class=\"resume\" data-offset=\"\(mark.offset)\">"
            svg += "<path d=\"M\(format(x - 6)),\(format(y + 6)) L\(format(x + 6)),\(format(y)) L\(format(x - 6)),"
            svg += "\(format(y - 6)) Z\"/>"
            svg += "<text x=\"\(format(x + 8))\" y=\"\(format(y - 6))\">\(escape(mark.label))</text>"
            svg += "<title>\(escape(mark.label)) at \(seconds(mark.microseconds)) s</title></g>\n"
        }
        for mark in timeline.acknowledged {
            let (x, y) = (format(frame.x(mark.microseconds)), format(frame.y(mark.offset)))
            svg += "<g class=\"ack\" data-offset=\"\(mark.offset)\" data-kind=\"\(escape(mark.label))\">"
            svg += "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"\(mark.label == "104" ? 2.5 : 4)\"/>"
            svg +=
                "<title>\(escape(mark.label)): the server acknowledged \(mark.offset) at \(seconds(mark.microseconds)) s"
            svg += "</title></g>\n"
        }
        for fault in faults {
            let x = format(frame.x(fault.timeMicroseconds))
            let offset = fault.offset.map { " at offset \($0)" } ?? ""
            svg += "<g class=\"fault\" data-rule=\"\(escape(fault.rule))\" data-action=\"\(escape(fault.action))\" "
            svg += "data-connection=\"\(fault.connection)\" data-time=\"\(fault.timeMicroseconds)\""
            svg += fault.offset.map { " data-offset=\"\($0)\"" } ?? ""
            svg += "><line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(format(frame.top))\" y2=\"\(format(frame.bottom))\"/>"
            svg += "<path d=\"M\(x),\(format(frame.top)) l-5,-8 h10 Z\"/>"
            svg += "<text x=\"\(x)\" y=\"\(format(frame.bottom + 26))\" text-anchor=\"middle\">"
            svg += "\(escape(fault.rule)): \(escape(fault.action))</text>"
            svg += "<title>fault \(escape(fault.rule)) (\(escape(fault.action))) on connection \(fault.connection)"
            svg += "\(offset) at \(seconds(fault.timeMicroseconds)) s</title></g>\n"
        }
        for (request, lane) in zip(timeline.requests, lanes) {
            let x0 = frame.x(request.startMicroseconds)
            let x1 = max(frame.x(request.endMicroseconds), x0 + 2)
            let y = frame.bottom + 34 + Double(lane) * 20
            let status = request.status.map(String.init) ?? "none"
            svg += "<g class=\"request\" data-method=\"\(request.method)\" data-status=\"\(status)\" "
            svg += "data-connection=\"\(request.connection)\"><rect x=\"\(format(x0))\" y=\"\(format(y))\" "
            svg += "width=\"\(format(x1 - x0))\" height=\"14\" rx=\"3\"/>"
            svg += "<text x=\"\(format(x0 + 3))\" y=\"\(format(y + 11))\">\(escape(request.label))</text>"
            svg += "<title>conn \(request.connection) #\(request.exchange) \(escape(request.label)) from "
            svg += "\(seconds(request.startMicroseconds)) s to \(seconds(request.endMicroseconds)) s</title></g>\n"
        }
        svg += "</svg>\n"
        var figure = "<figure class=\"upload\" data-asset=\"\(escape(timeline.name))\">\n" + svg
        figure += "<figcaption>\(escape(timeline.name))"
        if let length = timeline.length { figure += " (\(length) bytes)" }
        figure += ": \(escape(description))</figcaption>\n"
        figure += marksTable(timeline, faults: faults, events: events)
        return figure + "</figure>\n"
    }

    /// The chart's text alternative: what happened to the upload, in a sentence or two.
    private static func description(_ timeline: UploadTimeline, faults: [FaultFiring], events: [EventRecord])
        -> String
    {
        var parts = ["\(timeline.requests.count) requests: " + timeline.requests.map(\.label).joined(separator: ", ")]
        if let most = timeline.acknowledged.map(\.offset).max() {
            parts.append("the server acknowledged up to \(most)")
        }
        if !timeline.resumes.isEmpty { parts.append(timeline.resumes.map(\.label).joined(separator: ", ")) }
        if !faults.isEmpty {
            parts.append(
                "faults: "
                    + faults.map { "\($0.rule) (\($0.action))" + ($0.offset.map { " at offset \($0)" } ?? "") }
                    .joined(separator: ", "))
        }
        if !events.isEmpty { parts.append("events: " + events.map(\.event).joined(separator: ", ")) }
        return parts.joined(separator: "; ") + "."
    }

    /// A request's offsets over time as a line from its start offset, `kind` its class; none without points.
    private static func polyline(
        _ request: RequestSpan, _ marks: [OffsetMark], kind: String, what: String, _ frame: Frame
    ) -> String {
        guard let last = marks.last else { return "" }
        var points: [(Int64, Int64)] = []
        if let start = request.startOffset { points.append((request.startMicroseconds, start)) }
        points += marks.map { ($0.microseconds, $0.offset) }
        let text = points.map { "\(format(frame.x($0.0))),\(format(frame.y($0.1)))" }.joined(separator: " ")
        var line =
            "<polyline class=\"\(kind)\" data-method=\"\(request.method)\" data-connection=\"\(request.connection)\" "
        line += "data-exchange=\"\(request.exchange)\" data-last=\"\(last.offset)\" points=\"\(text)\">"
        return line + "<title>\(escape(request.label)): \(what) up to \(last.offset)</title></polyline>\n"
    }

    /// Every mark of the chart in time order, as a table (the chart's long text alternative).
    private static func marksTable(_ timeline: UploadTimeline, faults: [FaultFiring], events: [EventRecord])
        -> String
    {
        var rows: [(Int64, String, String)] = []
        for request in timeline.requests {
            let sent = [
                request.sent.last.map { "sent up to \($0.offset)" },
                request.forwarded.last.map { "forwarded up to \($0.offset)" },
            ].compactMap { $0 }.joined(separator: ", ")
            rows.append(
                (request.startMicroseconds, "conn \(request.connection) #\(request.exchange) \(request.label)", sent))
        }
        rows += timeline.acknowledged.map { ($0.microseconds, "acknowledged (\($0.label))", "\($0.offset)") }
        rows += timeline.resumes.map { ($0.microseconds, $0.label, "\($0.offset)") }
        rows += faults.map {
            (
                $0.timeMicroseconds, "fault \($0.rule): \($0.action) on conn \($0.connection)",
                $0.offset.map(String.init) ?? ""
            )
        }
        rows += events.compactMap { event in event.proxyMicroseconds.map { ($0, "event \(event.event)", "") } }
        var table = "<details class=\"marks\"><summary>The chart as a table</summary>\n<table>"
        table += "<thead><tr><th scope=\"col\">time (s)</th><th scope=\"col\">what</th><th scope=\"col\">offset</th>"
        table += "</tr></thead><tbody>\n"
        for (time, what, offset) in rows.sorted(by: { $0.0 < $1.0 }) {
            table += "<tr><td>\(seconds(time))</td><td>\(escape(what))</td><td>\(escape(offset))</td></tr>\n"
        }
        return table + "</tbody></table></details>\n"
    }

    /// The frame, the offset ticks (0, half, top) and five time ticks.
    private static func axes(_ frame: Frame) -> String {
        var svg = "<g class=\"axes\"><rect x=\"\(format(frame.left))\" y=\"\(format(frame.top))\" "
        svg += "width=\"\(format(frame.right - frame.left))\" height=\"\(format(frame.bottom - frame.top))\"/>"
        for offset in [0, frame.top0 / 2, frame.top0] {
            let y = format(frame.y(offset))
            svg += "<text x=\"\(format(frame.left - 6))\" y=\"\(y)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
            svg += "\(size(offset))</text>"
        }
        for step in 0...4 {
            let time = frame.t0 + (frame.t1 - frame.t0) * Int64(step) / 4
            svg += "<text x=\"\(format(frame.x(time)))\" y=\"\(format(frame.bottom + 12))\" text-anchor=\"middle\">"
            svg += "\(seconds(time)) s</text>"
        }
        return svg + "</g>\n"
    }

    /// Lanes for the request spans (their extents on the chart), so that none overlaps another: each takes the
    /// first lane free at its start.
    static func lanes(_ spans: [(start: Double, end: Double)]) -> [Int] {
        var ends: [Double] = []
        return spans.map { span in
            if let free = ends.firstIndex(where: { $0 < span.start }) {
                ends[free] = span.end
                return free
            }
            ends.append(span.end)
            return ends.count - 1
        }
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

    private static func seconds(_ micros: Int64) -> String {
        ReportText.seconds(.microseconds(micros), digits: 3)
    }

    private static func format(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    private static func size(_ bytes: Int64) -> String {
        ByteSize.short(bytes)
    }

    /// How to read the charts, once per page.
    private static let key = """
        <p id="key" class="key"><span class="swatch sent"></span>bytes the client sent, as the proxy read them \
        <span class="swatch forwarded"></span>bytes forwarded to the server, as they were written to its socket \
        (a bandwidth or latency fault shows as a slope) \
        <span class="swatch ack"></span>offsets the server acknowledged (104, HEAD, final, 409) \
        <span class="swatch resume"></span>where the client resumed, from which offset \
        <span class="swatch fault"></span>a fault, at the time it reached the wire \
        <span class="swatch event"></span>an event; below each plot, each request as a span with its method and \
        status</p>

        """

    private static let style = """
        :root{--fg:#1b1f24;--bg:#ffffff;--muted:#57606a;--line:#d0d7de;--pass:#1a7f37;--fail:#cf222e;\
        --skip:#9a6700;--sent:#0969da;--fwd:#bc4c00;--ack:#1a7f37;--fault:#cf222e;--event:#8250df;--span:#eaeef2}
        @media (prefers-color-scheme: dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;\
        --pass:#3fb950;--fail:#f85149;--skip:#d29922;--sent:#4493f8;--fwd:#f0883e;--ack:#3fb950;--fault:#f85149;--event:#a371f7;\
        --span:#21262d}}
        body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1000px;\
        padding:0 16px 48px}
        h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-top:1px solid var(--line);padding-top:16px}
        table{border-collapse:collapse;width:100%;margin:8px 0}th,td{text-align:left;vertical-align:top;\
        padding:4px 8px;border-bottom:1px solid var(--line)}caption{text-align:left;font-weight:600;padding:4px 0}
        .facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:0}.facts dt{color:var(--muted);font-size:12px}\
        .facts dd{margin:0;font-weight:600}
        .summary.failed{color:var(--fail);font-weight:600}.summary.passed{color:var(--pass);font-weight:600}
        .badge{font-size:12px;padding:1px 6px;border-radius:8px;border:1px solid currentColor}
        .badge.passed{color:var(--pass)}.badge.failed{color:var(--fail)}.badge.skipped,.badge.flaky{color:var(--skip)}
        .meta{color:var(--muted)}.error,.skip{color:var(--fail)}ul{margin:0;padding-left:18px}
        figure{margin:16px 0}figcaption{color:var(--muted);font-size:13px}
        svg.chart{max-width:100%;height:auto;color:var(--fg)}
        .axes rect{fill:none;stroke:var(--line)}.axes text,.chart text{fill:var(--muted);font-size:11px}
        .sent{fill:none;stroke:var(--sent);stroke-width:2}.forwarded{fill:none;stroke:var(--fwd);stroke-width:2;\
        stroke-dasharray:6 3}.ack circle{fill:var(--ack)}
        .resume path{fill:var(--sent)}.resume text{fill:var(--sent)}
        .fault line{stroke:var(--fault);stroke-dasharray:4 3}.fault path{fill:var(--fault)}.fault text{fill:var(--fault)}
        .event line{stroke:var(--event);stroke-width:1.5}.event text{fill:var(--event)}
        .request rect{fill:var(--span);stroke:var(--line)}.request text{fill:var(--fg)}
        .key{color:var(--muted);font-size:13px}.swatch{display:inline-block;width:14px;height:3px;\
        vertical-align:middle;margin:0 4px 0 10px}.swatch.sent{background:var(--sent)}.swatch.forwarded{background:var(--fwd)}.swatch.ack{height:8px;\
        width:8px;border-radius:4px;background:var(--ack)}.swatch.resume{background:var(--sent);height:8px;width:6px}\
        .swatch.fault{border-top:2px dashed var(--fault);height:0}.swatch.event{background:var(--event)}
        """
}
