import FaultEngine
import HTTPWire

/// Squall's native endpoints, served only while a running proxy is attached (else 404). Faults are JSON in the
/// scenario vocabulary (`FaultRule(_:path:)`); a refused request changes nothing.
///
/// | method and path | reply |
/// |---|---|
/// | `GET /squall/connections` | 200 `[LiveConnection, …]` |
/// | `GET /squall/faults` | 200 `[fault, …]`, each with its `fired` count, `state` and `reason` (see `ListedFault`) |
/// | `POST /squall/faults` (a fault or an array) | 201 what was added; 400 naming the JSON path; 409 on a name in use |
/// | `DELETE /squall/faults/{name}` | 204; 404 |
/// | `POST /squall/connections/{id}/fire` (an action) | 200 `{"fired": name, "connection": id}`; 404; 400 |
/// | `POST /squall/scenario` (`faults`, optional `seed`) | 200 `{"faults": N}`, replacing every fault |
/// | `GET /squall/transcript?from=N` | 200 JSON Lines, `Squall-Transcript-Next: M` |
/// | `GET /metrics` | 200 Prometheus text exposition 0.0.4 |
extension ControlAPIHandler {
    func native(_ target: RequestTarget, _ method: HTTPMethod, _ body: [UInt8]) throws(ControlAPIError)
        -> ControlAPIReply
    {
        guard let runtime else { throw ControlAPIError(.notFound, "no endpoint \(target.path): no proxy attached") }
        let segments = target.segments
        switch segments.count {
        case 1:
            try allow(method, [.get])
            return ControlAPIReply(text: PrometheusText(runtime.metrics()).text, contentType: PrometheusText.mediaType)
        case 2 where segments[1] == "connections":
            try allow(method, [.get])
            return ControlAPIReply(runtime.liveConnections())
        case 2 where segments[1] == "faults":
            return try faults(runtime, method, body)
        case 3 where segments[1] == "faults":
            try allow(method, [.delete])
            try runtime.removeFaultRule(named: segments[2])
            return .noContent
        case 4 where segments[1] == "connections" && segments[3] == "fire":
            try allow(method, [.post])
            return try fire(runtime, connection: segments[2], body)
        case 2 where segments[1] == "scenario":
            try allow(method, [.post])
            let scenario = try NativeInput.scenario(body)
            runtime.replaceFaultRules(scenario.faults, seed: scenario.seed)
            return ControlAPIReply(["faults": scenario.faults.count])
        case 2 where segments[1] == "transcript":
            try allow(method, [.get])
            return try transcript(runtime, from: target.queryValue("from"))
        default:
            throw ControlAPIError(.notFound, "no endpoint \(target.path)")
        }
    }

    private func faults(_ runtime: any ProxyRuntime, _ method: HTTPMethod, _ body: [UInt8]) throws(ControlAPIError)
        -> ControlAPIReply
    {
        try allow(method, [.get, .post])
        if method == .get {
            let statuses = Dictionary(
                runtime.faultStatuses().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            return ControlAPIReply(runtime.faultRules().map { ListedFault(rule: $0, status: statuses[$0.name]) })
        }
        let (rules, isArray) = try NativeInput.faults(body)
        try runtime.addFaultRules(rules)
        return isArray ? ControlAPIReply(status: 201, rules) : ControlAPIReply(status: 201, rules[0])
    }

    private func fire(_ runtime: any ProxyRuntime, connection: String, _ body: [UInt8]) throws(ControlAPIError)
        -> ControlAPIReply
    {
        guard let id = Int(connection) else { throw ControlAPIError(.notFound, "no connection \(connection)") }
        let rule = try NativeInput.firedAction(body)
        try runtime.fire(rule.action, direction: rule.direction, on: id, name: rule.name)
        return ControlAPIReply(FireReply(fired: rule.name, connection: id))
    }

    private func transcript(_ runtime: any ProxyRuntime, from text: String?) throws(ControlAPIError)
        -> ControlAPIReply
    {
        var from = 0
        if let text {
            guard let index = Int(text), index >= 0 else {
                throw ControlAPIError(.badRequest, "from: expected a whole number ≥ 0, got \"\(text)\"")
            }
            from = index
        }
        let (lines, next) = runtime.transcriptLines(from: from)
        var fields = HTTPFields()
        fields.append(name: "Squall-Transcript-Next", value: String(next))
        return ControlAPIReply(text: lines, contentType: "application/x-ndjson", fields: fields)
    }

    /// A fault as `GET /squall/faults` lists it: the rule in the scenario vocabulary, then `fired` (how many
    /// times), `state` (`armed`, `fired`, `exhausted`, `unresolvable`; see `FaultRuleStatus.State`) and, when a
    /// request it matched could not place it, `reason`. Leave those three out to post the rule back.
    struct ListedFault: Encodable {
        var rule: FaultRule
        var status: FaultRuleStatus?

        private enum Keys: String, CodingKey {
            case fired, state, reason
        }

        func encode(to encoder: any Encoder) throws {
            try rule.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(status?.fired ?? 0, forKey: .fired)
            try container.encode(status?.state ?? .armed, forKey: .state)
            try container.encodeIfPresent(status?.reason, forKey: .reason)
        }
    }

    private struct FireReply: Encodable {
        var fired: String
        var connection: Int
    }
}
