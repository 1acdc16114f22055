extension FaultRule {
    /// A rule from a Toxiproxy toxic, as its API and client libraries send it (each family maps its toxics, `toxics`): `{name, type, stream, toxicity,
    /// attributes}`. Missing attributes are 0, as in Toxiproxy; the rule is `optional` (a toxic asserts nothing).
    ///
    /// | toxic | attributes (units) | rule |
    /// |---|---|---|
    /// | `latency` | `latency`, `jitter` (ms) | `latency` |
    /// | `bandwidth` | `rate` (KB/s, 1 KB = 1000 B) | `bandwidth` at rate × 1000 bytes/s; 0 is an error here (Toxiproxy: unlimited) |
    /// | `slow_close` | `delay` (ms) | `slow-close` |
    /// | `timeout` | `timeout` (ms) | `stall` forever when 0, else `stall` for it then close |
    /// | `reset_peer` | `timeout` (ms) | `reset`, on match when 0, else `after` the timeout |
    /// | `slicer` | `average_size`, `size_variation` (B), `delay` (µs) | `slice` |
    /// | `limit_data` | `bytes` | `limit` |
    ///
    /// `stream` (`upstream` or `downstream`, default downstream) becomes the direction where the action takes
    /// one; `toxicity` (default 1) the probability, rolled per connection as Toxiproxy does; `name` defaults to
    /// `<type>_<stream>`. Unknown types and attributes, negative values and out-of-range toxicity are errors.
    public init(
        toxiproxy name: String?, type: String, stream: String?, toxicity: Double?, attributes: [String: Int64]
    ) throws(FaultError) {
        guard let toxic = FaultFamilies.toxics[type] else {
            let types = FaultFamilies.toxics.keys.sorted().joined(separator: ", ")
            throw FaultError(.unknownToxic, path: "type", "unknown toxic type \"\(type)\"; known: \(types)")
        }
        if let unknown = attributes.keys.sorted().first(where: { !toxic.attributes.contains($0) }) {
            let expected = toxic.attributes.sorted().joined(separator: ", ")
            throw FaultError(.unknownAttribute, path: "attributes.\(unknown)", "\(type) has attributes: \(expected)")
        }
        if let negative = attributes.sorted(by: { $0.key < $1.key }).first(where: { $0.value < 0 }) {
            throw FaultError(.invalidValue, path: "attributes.\(negative.key)", "\(negative.value) is negative")
        }
        let streamName = stream ?? "downstream"
        guard streamName == "upstream" || streamName == "downstream" else {
            throw FaultError(.invalidValue, path: "stream", "expected upstream or downstream, got \"\(streamName)\"")
        }
        let probability = toxicity ?? 1
        guard probability >= 0, probability <= 1 else {
            throw FaultError(.invalidValue, path: "toxicity", "\(probability) is outside 0…1")
        }
        let (trigger, action) = try toxic.make(attributes)
        try self.init(
            name: name ?? "\(type)_\(streamName)", trigger: trigger, action: action,
            direction: action.takesDirection ? FaultDirection(rawValue: streamName) : nil, probability: probability,
            optional: true)
    }
}
