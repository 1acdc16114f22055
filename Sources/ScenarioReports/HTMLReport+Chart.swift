import Scenario
import SquallCore

/// The chart of one upload: offsets over time, what the client sent and what reached the server, the server's
/// acknowledgements, resumes, faults and events, with its text alternatives.
extension HTMLReport {
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

    static func figure(_ timeline: UploadTimeline, result: ScenarioResult) -> String {
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
            svg += "\(ByteSize.short(offset))</text>"
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
}
