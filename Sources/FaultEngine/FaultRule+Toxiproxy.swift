extension FaultRule {
    /// The attributes of each Toxiproxy toxic type Squall maps (Toxiproxy 2.x `toxics/*.go`).
    static let toxiproxyAttributes: [String: Set<String>] = [
        "latency": ["latency", "jitter"],
        "bandwidth": ["rate"],
        "slow_close": ["delay"],
        "timeout": ["timeout"],
        "reset_peer": ["timeout"],
        "slicer": ["average_size", "size_variation", "delay"],
        "limit_data": ["bytes"],
    ]

    /// A rule from a Toxiproxy toxic, as its API and client libraries send it: `{name, type, stream, toxicity,
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
        guard let known = Self.toxiproxyAttributes[type] else {
            let types = Self.toxiproxyAttributes.keys.sorted().joined(separator: ", ")
            throw FaultError(.unknownToxic, path: "type", "unknown toxic type \"\(type)\"; known: \(types)")
        }
        if let unknown = attributes.keys.sorted().first(where: { !known.contains($0) }) {
            let expected = known.sorted().joined(separator: ", ")
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
        let (trigger, action) = try Self.toxiproxyAction(type, attributes)
        try self.init(
            name: name ?? "\(type)_\(streamName)", trigger: trigger, action: action,
            direction: action.takesDirection ? FaultDirection(rawValue: streamName) : nil, probability: probability,
            optional: true)
    }

    private static func toxiproxyAction(
        _ type: String, _ attributes: [String: Int64]
    ) throws(FaultError) -> (FaultTrigger, FaultAction) {
        func value(_ key: String) -> Int64 { attributes[key] ?? 0 }
        func milliseconds(_ key: String) -> Duration { .milliseconds(value(key)) }
        switch type {
        case "latency":
            return (.onMatch, .latency(milliseconds("latency"), jitter: milliseconds("jitter")))
        case "bandwidth":
            let (rate, overflow) = value("rate").multipliedReportingOverflow(by: 1000)
            guard rate > 0, !overflow else {
                throw FaultError(
                    .invalidValue, path: "attributes.rate",
                    "rate must be 1…\(Int64.max / 1000) KB/s; Toxiproxy's 0 means unlimited: remove the toxic instead")
            }
            return (.onMatch, .bandwidth(bytesPerSecond: rate))
        case "slow_close":
            return (.onMatch, .slowClose(delay: milliseconds("delay")))
        case "timeout":
            let timeout = value("timeout")
            return (.onMatch, .stall(duration: timeout == 0 ? nil : .milliseconds(timeout), thenClose: timeout != 0))
        case "reset_peer":
            return (value("timeout") == 0 ? .onMatch : .after(milliseconds("timeout")), .reset)
        case "slicer":
            let size = value("average_size")
            let variation = value("size_variation")
            guard size > 0, variation < size else {
                throw FaultError(
                    .invalidValue, path: "attributes.average_size", "slicer needs average_size > size_variation ≥ 0")
            }
            return (.onMatch, .slice(size: size, variation: variation, delay: .microseconds(value("delay"))))
        default:
            return (.onMatch, .limit(bytes: value("bytes")))
        }
    }
}
