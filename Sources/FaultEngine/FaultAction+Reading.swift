import SquallCore

extension FaultAction {
    /// The keys each action reads beside the rule's own, by action name (scenario files keep them flat on the
    /// rule: `{"action": "latency", "latency": "250ms", "jitter": "50ms"}`).
    static let keysByName: [String: Set<String>] = [
        "reset": [], "close": [], "refuse": [], "strip-interim": [], "drop-response": [],
        "stall": ["duration", "then"],
        "latency": ["latency", "jitter"],
        "bandwidth": ["rate"],
        "slice": ["size", "variation", "delay"],
        "limit": ["bytes"],
        "slow-close": ["delay"],
        "respond": ["status", "headers", "body"],
        "expire-auth": ["challenge"],
        "delay-response": ["duration"],
        "rewrite-header": ["header", "value"],
        "truncate-response": ["after"],
    ]

    /// Reads the action named `name` and its keys from the rule's object.
    ///
    /// - `stall`: `duration` (absent: forever), `then`: `"release"` (default) or `"close"`.
    /// - `latency`: `latency` and `jitter` (default `0ms`). `bandwidth`: `rate`, a size per second (`"64KiB"`).
    /// - `slice`: `size`, `variation` (default 0), `delay` (default `0ms`). `limit`: `bytes`.
    /// - `slow-close`: `delay`. `delay-response`: `duration`. `truncate-response`: `after` (a size).
    /// - `respond`: `status`, `headers` (object), `body` (string). `expire-auth`: `challenge` (default
    ///   `Bearer`). `rewrite-header`: `header`, `value` (absent or null removes the field).
    static func decode(named name: String, from reader: JSONFieldReader) throws -> FaultAction {
        switch name {
        case "reset": return .reset
        case "close": return .close
        case "refuse": return .refuse
        case "strip-interim": return .stripInterim
        case "drop-response": return .dropResponse
        case "stall": return try decodeStall(reader)
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
        case "slow-close":
            return .slowClose(delay: try reader.require(try reader.duration("delay"), "delay", expected: "a duration"))
        case "respond": return .respond(try decodeResponse(reader))
        case "expire-auth": return .expireAuth(challenge: try reader.string("challenge") ?? "Bearer")
        case "delay-response":
            return .delayResponse(
                try reader.require(try reader.duration("duration"), "duration", expected: "a duration"))
        case "rewrite-header":
            let header = try reader.require(try reader.string("header"), "header", expected: "a field name")
            return .rewriteHeader(name: header, value: reader.isNull("value") ? nil : try reader.string("value"))
        default:
            return .truncateResponse(
                afterBytes: try reader.require(try reader.size("after"), "after", expected: "a size"))
        }
    }

    private static func decodeStall(_ reader: JSONFieldReader) throws -> FaultAction {
        let then = try reader.string("then") ?? "release"
        guard then == "release" || then == "close" else {
            throw FaultError(
                .invalidValue, path: reader.path("then"), "expected \"release\" or \"close\", got \"\(then)\"")
        }
        return .stall(duration: try reader.duration("duration"), thenClose: then == "close")
    }

    private static func decodeResponse(_ reader: JSONFieldReader) throws -> FaultResponse {
        let status = try reader.require(try reader.int("status"), "status", expected: "a status code such as 503")
        let fields = try reader.stringMap("headers")?.map { FaultHeader(name: $0.key, value: $0.value) } ?? []
        return FaultResponse(status: status, fields: fields, body: try reader.string("body") ?? "")
    }
}
