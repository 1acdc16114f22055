import FaultEngine

/// One Toxiproxy toxic: its JSON view, `{name, type, stream, toxicity, attributes}`, and the fault rule it maps to
/// through `FaultRule(toxiproxy:type:stream:toxicity:attributes:)`, which also validates it.
public struct ToxiproxyToxic: Sendable, Hashable, Encodable {
    /// The toxic's name, unique within its proxy; defaults to `<type>_<stream>`.
    public let name: String
    /// The Toxiproxy toxic type: `latency`, `bandwidth`, `slow_close`, `timeout`, `reset_peer`, `slicer`,
    /// `limit_data`.
    public let type: String
    /// `upstream` (client to server) or `downstream` (server to client, the default).
    public let stream: String
    /// The probability (0…1) that the toxic applies to a connection.
    public let toxicity: Double
    /// The attributes as the client sent them, in Toxiproxy's units (ms, KB/s, bytes, µs for `slicer.delay`).
    public let attributes: [String: Int64]
    /// The fault rule the toxic maps to.
    public let rule: FaultRule

    /// A validated toxic; an empty name counts as none, as in Toxiproxy.
    public init(
        name: String?, type: String, stream: String?, toxicity: Double?, attributes: [String: Int64]
    ) throws(FaultError) {
        let givenName = name.flatMap { $0.isEmpty ? nil : $0 }
        rule = try FaultRule(
            toxiproxy: givenName, type: type, stream: stream, toxicity: toxicity, attributes: attributes)
        self.name = rule.name
        self.type = type
        self.stream = stream ?? "downstream"
        self.toxicity = toxicity ?? 1
        self.attributes = attributes
    }

    /// This toxic with `toxicity` replaced when given and `attributes` merged over the current ones, revalidated.
    func updated(toxicity newToxicity: Double?, attributes newAttributes: [String: Int64]) throws(FaultError) -> Self {
        try ToxiproxyToxic(
            name: name, type: type, stream: stream, toxicity: newToxicity ?? toxicity,
            attributes: attributes.merging(newAttributes) { _, new in new })
    }

    private enum CodingKeys: String, CodingKey {
        case name, type, stream, toxicity, attributes
    }
}
