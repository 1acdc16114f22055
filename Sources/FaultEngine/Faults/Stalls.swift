import SquallCore

/// `stall`: holds the bytes of the rule's direction for `duration` (absent: for good, a blackhole), then lets them
/// go; with `"then": "close"` drops them and closes the connection instead (Toxiproxy's `timeout`).
///
/// ```json
/// {"name": "hold", "trigger": {"at-offset": "50%"}, "action": "stall", "duration": "2s", "direction": "upstream"}
/// {"name": "timeout", "action": "stall", "duration": "100ms", "then": "close"}
/// ```
enum Stalls: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        if case .stall = action { true } else { false }
    }

    static let keys: [String: Set<String>] = ["stall": ["duration", "then"]]

    /// `duration` (absent: forever), `then`: `"release"` (default) or `"close"`.
    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        let then = try reader.string("then") ?? "release"
        guard then == "release" || then == "close" else {
            throw FaultError(
                .invalidValue, path: reader.path("then"), "expected \"release\" or \"close\", got \"\(then)\"")
        }
        return .stall(duration: try reader.duration("duration"), thenClose: then == "close")
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        guard case .stall(let duration, let thenClose) = action else { return }
        try writer.duration("duration", duration)
        if thenClose { try writer.string("then", "close") }
    }

    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError) {
        if case .stall(nil, true) = action {
            throw FaultError(.notApplicable, path: "then", "a stall forever never reaches its close")
        }
    }

    static func name(_ action: FaultAction) -> String { "stall" }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing { .anytime }

    static func isConnectionAction(_ action: FaultAction) -> Bool { true }

    static func takesDirection(_ action: FaultAction) -> Bool { true }

    static let interrupting: Set<String> = ["stall"]

    static func wire(_ action: FaultAction) -> FaultWire {
        guard case .stall(let duration, let thenClose) = action else { preconditionFailure("\(action)") }
        return .shape(.stall(duration, thenClose: thenClose), clientOnly: false)
    }

    /// Toxiproxy's `timeout`: a stall forever when 0, else a stall for it, then the close.
    static let toxics: [String: Toxic] = [
        "timeout": Toxic(attributes: ["timeout"]) { attributes in
            let timeout = attributes["timeout"] ?? 0
            return (.onMatch, .stall(duration: timeout == 0 ? nil : .milliseconds(timeout), thenClose: timeout != 0))
        }
    ]
}
