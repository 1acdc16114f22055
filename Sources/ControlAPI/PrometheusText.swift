/// The proxy's counters in the Prometheus text exposition format 0.0.4, each metric with `# HELP` and `# TYPE`:
///
///     squall_proxy_bytes_total{direction="upstream"} 1024          counter, also direction="downstream"
///     squall_proxy_connections_accepted_total 3                    counter
///     squall_proxy_connections_open 1                              gauge
///     squall_proxy_connections_shed_total 0                        counter (over the limit: 503, not served)
///     squall_proxy_faults_fired_total{rule="cut-at-40"} 1          counter, one line per rule, sorted by name
///     squall_proxy_transcript_events 120                           gauge, kept in memory (also _bytes, estimated)
///     squall_proxy_transcript_dropped_total 0                      counter, dropped from memory past its bound
///
/// Label values escape `\`, `"` and line feeds as `\\`, `\"` and `\n`, as the format requires.
struct PrometheusText {
    /// The `Content-Type` of the format.
    static let mediaType = "text/plain; version=0.0.4"

    let text: String

    init(_ metrics: ProxyMetrics) {
        var lines: [String] = []
        lines += Self.header("squall_proxy_bytes_total", "counter", "Bytes forwarded, by direction.")
        lines.append(#"squall_proxy_bytes_total{direction="upstream"} \#(metrics.bytesUpstream)"#)
        lines.append(#"squall_proxy_bytes_total{direction="downstream"} \#(metrics.bytesDownstream)"#)
        lines += Self.header("squall_proxy_connections_accepted_total", "counter", "Connections accepted.")
        lines.append("squall_proxy_connections_accepted_total \(metrics.connectionsAccepted)")
        lines += Self.header("squall_proxy_connections_open", "gauge", "Connections open now.")
        lines.append("squall_proxy_connections_open \(metrics.connectionsOpen)")
        lines += Self.header(
            "squall_proxy_connections_shed_total", "counter",
            "Connections over a listener's limit, answered 503 (or closed) and not served.")
        lines.append("squall_proxy_connections_shed_total \(metrics.connectionsShed)")
        lines += Self.header("squall_proxy_transcript_events", "gauge", "Transcript events kept in memory.")
        lines.append("squall_proxy_transcript_events \(metrics.transcriptEvents)")
        lines += Self.header(
            "squall_proxy_transcript_bytes", "gauge", "Estimated bytes of the transcript events kept in memory.")
        lines.append("squall_proxy_transcript_bytes \(metrics.transcriptBytes)")
        lines += Self.header(
            "squall_proxy_transcript_dropped_total", "counter",
            "Transcript events dropped from memory past its bound (the --transcript file keeps them).")
        lines.append("squall_proxy_transcript_dropped_total \(metrics.transcriptDropped)")
        lines += Self.header("squall_proxy_faults_fired_total", "counter", "Faults fired, by rule name.")
        for (rule, count) in metrics.faultsFired.sorted(by: { $0.key < $1.key }) {
            lines.append("squall_proxy_faults_fired_total{rule=\"\(Self.escaped(rule))\"} \(count)")
        }
        text = lines.joined(separator: "\n") + "\n"
    }

    private static func header(_ name: String, _ type: String, _ help: String) -> [String] {
        ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"]
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escaped(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}
