import SquallCore

/// The answers: `respond` answers a request for the server; `expire-auth` answers 401 to requests whose token was
/// first seen before the rule armed; `delay-response` holds the final response (the client's side of the
/// connection) for a while.
///
/// ```json
/// {"name": "busy", "match": {"method": "POST"}, "action": "respond", "status": 503, "headers": {"Retry-After": "1"}}
/// {"name": "stale", "match": {"method": "HEAD"}, "action": "expire-auth", "challenge": "Bearer"}
/// {"name": "late", "action": "delay-response", "duration": "400ms"}
/// ```
enum Answers: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        switch action {
        case .respond, .expireAuth, .delayResponse: true
        default: false
        }
    }

    static let keys: [String: Set<String>] = [
        "respond": ["status", "headers", "body"], "expire-auth": ["challenge"], "delay-response": ["duration"],
    ]

    /// `respond`: `status`, `headers` (object), `body` (string). `expire-auth`: `challenge` (default `Bearer`).
    /// `delay-response`: `duration`.
    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        switch name {
        case "respond":
            let status = try reader.require(try reader.int("status"), "status", expected: "a status code such as 503")
            let fields = try reader.stringMap("headers")?.map { FaultHeader(name: $0.key, value: $0.value) } ?? []
            return .respond(FaultResponse(status: status, fields: fields, body: try reader.string("body") ?? ""))
        case "expire-auth":
            return .expireAuth(challenge: try reader.string("challenge") ?? "Bearer")
        default:
            return .delayResponse(
                try reader.require(try reader.duration("duration"), "duration", expected: "a duration"))
        }
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        switch action {
        case .respond(let response): try writer.response(response)
        case .expireAuth(let challenge): if challenge != "Bearer" { try writer.string("challenge", challenge) }
        case .delayResponse(let duration): try writer.duration("duration", duration)
        default: break
        }
    }

    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError) {
        guard case .respond(let response) = action else { return }
        guard (200...599).contains(response.status) else {
            throw FaultError(
                .invalidValue, path: "status",
                "status \(response.status) cannot answer a request: a final status is 200…599 (1xx are interim)")
        }
        for field in response.fields {
            try FaultRule.checkSendable(name: field.name, value: field.value, path: "headers.\(field.name)")
        }
    }

    static func name(_ action: FaultAction) -> String {
        switch action {
        case .respond: "respond"
        case .expireAuth: "expire-auth"
        default: "delay-response"
        }
    }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing {
        switch action {
        case .respond: .anytime
        case .expireAuth: .requestHead
        default: .finalResponse
        }
    }

    static let interrupting: Set<String> = ["respond", "expire-auth"]

    static func hidesOutcome(_ action: FaultAction, readTimeout: Duration) -> Bool {
        if case .delayResponse(let delay) = action { delay >= readTimeout } else { false }
    }

    static func wire(_ action: FaultAction) -> FaultWire {
        switch action {
        case .respond(let response): .answer(response)
        case .expireAuth(let challenge):
            .answer(FaultResponse(status: 401, fields: [FaultHeader(name: "WWW-Authenticate", value: challenge)]))
        case .delayResponse(let delay): .shape(.stall(delay, thenClose: false), clientOnly: true)
        default: preconditionFailure("\(action) is not an answer")
        }
    }

    static func unfired(_ action: FaultAction, in faults: ConnectionFaults, request: String) -> String? {
        guard case .delayResponse = action, !faults.met.finalResponse else { return nil }
        return "no final response came to \(request): the connection ended first"
    }
}
