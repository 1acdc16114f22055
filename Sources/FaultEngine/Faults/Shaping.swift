import SquallCore

/// The shaping effects, on the stream of the rule's direction while the rule lasts: `latency` delays each chunk,
/// `bandwidth` paces the bytes, `slice` cuts chunks into pieces, `limit` lets so many bytes through and then
/// closes, `slow-close` holds the peer's end of stream. Only `limit` interrupts the request; the others slow it.
///
/// ```json
/// {"name": "wan", "action": "latency", "latency": "250ms", "jitter": "50ms"}
/// {"name": "slow-up", "action": "bandwidth", "rate": "64KiB", "direction": "upstream"}
/// {"name": "pieces", "action": "slice", "size": "1KiB", "variation": 256, "delay": "1ms"}
/// {"name": "cap", "action": "limit", "bytes": "1MiB", "direction": "upstream"}
/// {"name": "lingering-fin", "action": "slow-close", "delay": "2s", "direction": "downstream"}
/// ```
enum Shaping: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        switch action {
        case .latency, .bandwidth, .slice, .limit, .slowClose: true
        default: false
        }
    }

    static let keys: [String: Set<String>] = [
        "latency": ["latency", "jitter"], "bandwidth": ["rate"], "slice": ["size", "variation", "delay"],
        "limit": ["bytes"], "slow-close": ["delay"],
    ]

    /// `latency`: `latency` and `jitter` (default `0ms`). `bandwidth`: `rate`, a size per second (`"64KiB"`).
    /// `slice`: `size`, `variation` (default 0), `delay` (default `0ms`). `limit`: `bytes`. `slow-close`: `delay`.
    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        switch name {
        case "latency":
            return .latency(
                try reader.require(try reader.duration("latency"), "latency", expected: "a duration such as \"250ms\""),
                jitter: try reader.duration("jitter") ?? .zero)
        case "bandwidth":
            return .bandwidth(bytesPerSecond: try reader.require(try reader.size("rate"), "rate", expected: "bytes/s"))
        case "slice":
            return .slice(
                size: try reader.require(try reader.size("size"), "size", expected: "a size such as \"1KiB\""),
                variation: try reader.size("variation") ?? 0, delay: try reader.duration("delay") ?? .zero)
        case "limit":
            return .limit(bytes: try reader.require(try reader.size("bytes"), "bytes", expected: "a size"))
        default:
            return .slowClose(delay: try reader.require(try reader.duration("delay"), "delay", expected: "a duration"))
        }
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        switch action {
        case .latency(let latency, let jitter):
            try writer.duration("latency", latency)
            if jitter != .zero { try writer.duration("jitter", jitter) }
        case .bandwidth(let rate):
            try writer.size("rate", rate)
        case .slice(let size, let variation, let delay):
            try writer.size("size", size)
            if variation != 0 { try writer.size("variation", variation) }
            if delay != .zero { try writer.duration("delay", delay) }
        case .limit(let bytes):
            try writer.size("bytes", bytes)
        case .slowClose(let delay):
            try writer.duration("delay", delay)
        default:
            break
        }
    }

    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError) {
        switch action {
        case .bandwidth(let rate) where rate <= 0:
            throw FaultError(.invalidValue, path: "rate", "bandwidth must be above 0 bytes/s; to stop, use stall")
        case .slice(let size, let variation, _) where size <= 0 || variation < 0 || variation >= size:
            throw FaultError(.invalidValue, path: "size", "slice needs size > 0 and 0 ≤ variation < size")
        case .limit(let bytes) where bytes < 0:
            throw FaultError(.invalidSize, path: "bytes", "limit cannot be negative")
        default:
            return
        }
    }

    static func name(_ action: FaultAction) -> String {
        switch action {
        case .latency: "latency"
        case .bandwidth: "bandwidth"
        case .slice: "slice"
        case .limit: "limit"
        default: "slow-close"
        }
    }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing { .anytime }

    static func isConnectionAction(_ action: FaultAction) -> Bool { true }

    static func takesDirection(_ action: FaultAction) -> Bool { true }

    static let interrupting: Set<String> = ["limit"]

    static func wire(_ action: FaultAction) -> FaultWire {
        switch action {
        case .latency(let delay, let jitter): .shape(.latency(delay, jitter: jitter), clientOnly: false)
        case .bandwidth(let rate): .shape(.bandwidth(bytesPerSecond: rate), clientOnly: false)
        case .slice(let size, let variation, let delay):
            .shape(.slice(size: size, variation: variation, delay: delay), clientOnly: false)
        case .limit(let bytes): .shape(.limit(bytes: bytes), clientOnly: false)
        case .slowClose(let delay): .shape(.slowClose(delay), clientOnly: false)
        default: preconditionFailure("\(action) is not a shaping effect")
        }
    }

    /// Toxiproxy's `latency`, `bandwidth` (KB/s, 1 KB = 1000 B; 0, unlimited there, is an error here), `slicer`
    /// (`delay` in µs), `limit_data` and `slow_close`.
    static let toxics: [String: Toxic] = [
        "latency": Toxic(attributes: ["latency", "jitter"]) { attributes in
            (
                .onMatch,
                .latency(.milliseconds(attributes["latency"] ?? 0), jitter: .milliseconds(attributes["jitter"] ?? 0))
            )
        },
        "bandwidth": Toxic(attributes: ["rate"]) { attributes throws(FaultError) in
            let (rate, overflow) = (attributes["rate"] ?? 0).multipliedReportingOverflow(by: 1000)
            guard rate > 0, !overflow else {
                throw FaultError(
                    .invalidValue, path: "attributes.rate",
                    "rate must be 1…\(Int64.max / 1000) KB/s; Toxiproxy's 0 means unlimited: remove the toxic instead")
            }
            return (.onMatch, .bandwidth(bytesPerSecond: rate))
        },
        "slicer": Toxic(attributes: ["average_size", "size_variation", "delay"]) { attributes throws(FaultError) in
            let size = attributes["average_size"] ?? 0
            let variation = attributes["size_variation"] ?? 0
            guard size > 0, variation < size else {
                throw FaultError(
                    .invalidValue, path: "attributes.average_size", "slicer needs average_size > size_variation ≥ 0")
            }
            return (.onMatch, .slice(size: size, variation: variation, delay: .microseconds(attributes["delay"] ?? 0)))
        },
        "limit_data": Toxic(attributes: ["bytes"]) { attributes in (.onMatch, .limit(bytes: attributes["bytes"] ?? 0))
        },
        "slow_close": Toxic(attributes: ["delay"]) { attributes in
            (.onMatch, .slowClose(delay: .milliseconds(attributes["delay"] ?? 0)))
        },
    ]
}
