import SquallCore

/// The cuts: `reset` and `refuse` end the connection with RSTs, `close` with FINs; `drop-response` closes the
/// client's side instead of forwarding the final response, `truncate-response` after `after` bytes of the response
/// body. Each is recorded when the connection's end reaches the wire.
///
/// ```json
/// {"name": "cut", "trigger": {"at-offset": "40%"}, "action": "reset"}
/// {"name": "offline", "action": "refuse", "times": 3}
/// {"name": "lose-201", "match": {"method": "POST"}, "action": "drop-response"}
/// {"name": "short", "action": "truncate-response", "after": "1KiB"}
/// ```
enum Cuts: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        switch action {
        case .reset, .close, .refuse, .dropResponse, .truncateResponse: true
        default: false
        }
    }

    static let keys: [String: Set<String>] = [
        "reset": [], "close": [], "refuse": [], "drop-response": [], "truncate-response": ["after"],
    ]

    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        switch name {
        case "reset": .reset
        case "close": .close
        case "refuse": .refuse
        case "drop-response": .dropResponse
        default:
            .truncateResponse(afterBytes: try reader.require(try reader.size("after"), "after", expected: "a size"))
        }
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        if case .truncateResponse(let afterBytes) = action { try writer.size("after", afterBytes) }
    }

    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError) {
        switch action {
        case .truncateResponse(let bytes) where bytes < 0:
            throw FaultError(.invalidSize, path: "after", "truncate-response cannot cut at a negative size")
        case .refuse where rule.match.needsRequest:
            throw FaultError(.notApplicable, path: "match", "refuse acts on new connections: match no request")
        default:
            return
        }
    }

    static func name(_ action: FaultAction) -> String {
        switch action {
        case .reset: "reset"
        case .close: "close"
        case .refuse: "refuse"
        case .dropResponse: "drop-response"
        default: "truncate-response"
        }
    }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing {
        switch action {
        case .refuse: .connectionOpen
        case .dropResponse: .finalResponse
        case .truncateResponse: .responseBody
        default: .anytime
        }
    }

    static func isConnectionAction(_ action: FaultAction) -> Bool {
        switch action {
        case .reset, .close, .refuse: true
        default: false
        }
    }

    static let interrupting: Set<String> = ["reset", "close", "refuse", "drop-response", "truncate-response"]

    static func responseBodyBytes(_ action: FaultAction) -> Int64? {
        if case .truncateResponse(let bytes) = action { bytes } else { nil }
    }

    static func hidesOutcome(_ action: FaultAction, readTimeout: Duration) -> Bool {
        action == .dropResponse || responseBodyBytes(action) != nil
    }

    static func wire(_ action: FaultAction) -> FaultWire {
        switch action {
        case .reset, .refuse: .cut(reset: true)
        case .close: .cut(reset: false)
        case .dropResponse: .dropFinalHead
        default: .closeClient
        }
    }

    static func unfired(_ action: FaultAction, in faults: ConnectionFaults, request: String) -> String? {
        switch action {
        case .truncateResponse(let kept):
            faults.shortBody(request, needed: kept, what: "nothing to truncate after \(kept) bytes")
        case .dropResponse:
            faults.met.finalResponse ? nil : "no final response came to \(request): the connection ended first"
        default:
            nil
        }
    }

    static let toxics: [String: Toxic] = [
        "reset_peer": Toxic(attributes: ["timeout"]) { attributes in
            let timeout = attributes["timeout"] ?? 0
            return (timeout == 0 ? .onMatch : .after(.milliseconds(timeout)), .reset)
        }
    ]
}
