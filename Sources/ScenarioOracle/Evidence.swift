import HTTPWire
import ProxyTranscript

/// How verdicts word their evidence lines, and how many they keep.
enum Evidence {
    /// The most evidence lines a verdict keeps; the rest are counted in a last line.
    static let limit = 20

    /// `lines`, at most `limit` of them, with `… and N more` standing for the rest.
    static func capped(_ lines: [String]) -> [String] {
        guard lines.count > limit else { return lines }
        return Array(lines.prefix(limit - 1)) + ["… and \(lines.count - limit + 1) more"]
    }

    /// A request: `conn 3 #2 PATCH /uploads/7 Upload-Offset: 1024`.
    static func request(_ head: RequestHead, connection: Int, exchange: Int) -> String {
        let offset = head.fields["Upload-Offset"].map { " Upload-Offset: \($0)" } ?? ""
        return "conn \(connection) #\(exchange) \(head.method) \(head.target)\(offset)"
    }

    /// A fault: `fault reset-mid (reset, upstream) on conn 2 at offset 1048576, 0.412s`.
    static func fault(_ fault: FiredFault, _ connection: Int, _ time: Duration) -> String {
        let offset = fault.offset.map { " at offset \($0)" } ?? ""
        return "fault \(fault.rule) (\(fault.action), \(fault.direction.rawValue)) on conn \(connection)\(offset), "
            + ScenarioOracle.seconds(time)
    }
}
