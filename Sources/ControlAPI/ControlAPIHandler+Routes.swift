import HTTPWire
import SquallCore

/// The Toxiproxy-compatible endpoints (Toxiproxy 2.x `api.go`), with its JSON shapes and status codes:
///
/// | method and path | reply |
/// |---|---|
/// | `GET /version` | 200 `{"version": "…"}` |
/// | `GET /proxies` | 200 `{name: proxy, …}` |
/// | `POST /proxies` | 201 proxy; 409 if the name exists |
/// | `POST /populate` | 201 `{"proxies": […]}`, creating or replacing each |
/// | `POST /reset` | 204; every proxy enabled, every toxic removed |
/// | `GET` / `POST` (or `PATCH`) / `DELETE /proxies/{p}` | 200 proxy / 200 proxy / 204 |
/// | `GET` / `POST /proxies/{p}/toxics` | 200 `[toxic, …]` / 200 toxic; 409 if the name exists |
/// | `GET` / `POST` (or `PATCH`) / `DELETE /proxies/{p}/toxics/{t}` | 200 toxic / 200 toxic / 204 |
///
/// A proxy is `{name, listen, upstream, enabled, toxics}`; a toxic `{name, type, stream, toxicity, attributes}`.
/// Paths under `/squall/` and `/metrics` are the native endpoints (`ControlAPIHandler+Native.swift`).
extension ControlAPIHandler {
    func route(_ head: RequestHead, _ body: [UInt8]) throws(ControlAPIError) -> ControlAPIReply {
        let target = RequestTarget(head.target)
        let segments = target.segments
        let method = head.method
        if let reply = try dashboardRoute(target, method) { return reply }
        if segments == ["squall", "events"] { return try eventStream(head, target) }
        if segments.first == "squall" || segments == ["metrics"] {
            return try native(target, method, body)
        }
        switch segments.count {
        case 1 where segments[0] == "version":
            try allow(method, [.get])
            return ControlAPIReply(["version": configuration.version])
        case 1 where segments[0] == "reset":
            try allow(method, [.post])
            try change { $0.reset() }
            return .noContent
        case 1 where segments[0] == "populate":
            try allow(method, [.post])
            let inputs = try decode(body, ProxyInput.list)
            return ControlAPIReply(
                status: 201,
                [
                    "proxies": try changeProxies { registry throws(ControlAPIError) in
                        try registry.populate(inputs).map(\.name)
                    }
                ])
        case 1 where segments[0] == "proxies":
            return try proxies(method, body)
        case 2 where segments[0] == "proxies":
            return try proxy(segments[1], method, body)
        case 3 where segments[0] == "proxies" && segments[2] == "toxics":
            return try toxics(of: segments[1], method, body)
        case 4 where segments[0] == "proxies" && segments[2] == "toxics":
            return try toxic(segments[3], of: segments[1], method, body)
        default:
            throw ControlAPIError(.notFound, "no endpoint \(target.path)")
        }
    }

    private func proxies(_ method: HTTPMethod, _ body: [UInt8]) throws(ControlAPIError) -> ControlAPIReply {
        try allow(method, [.get, .post])
        if method == .get { return ControlAPIReply(try read { $0.proxies }) }
        let input = try decode(body) { value throws(JSONError) in try ProxyInput(value, path: "") }
        let created = try changeProxies { registry throws(ControlAPIError) in [try registry.create(input).name] }
        return ControlAPIReply(status: 201, created[0])
    }

    private func proxy(_ name: String, _ method: HTTPMethod, _ body: [UInt8]) throws(ControlAPIError) -> ControlAPIReply
    {
        try allow(method, [.get, .post, .patch, .delete])
        switch method {
        case .get:
            return ControlAPIReply(try read { registry throws(ControlAPIError) in try registry.proxy(name) })
        case .delete:
            try change { registry throws(ControlAPIError) in try registry.delete(name) }
            return .noContent
        default:
            let input = try decode(body) { value throws(JSONError) in try ProxyInput(value, path: "") }
            let updated = try changeProxies { registry throws(ControlAPIError) in
                [try registry.update(name, input).name]
            }
            return ControlAPIReply(updated[0])
        }
    }

    private func toxics(
        of proxy: String, _ method: HTTPMethod, _ body: [UInt8]
    ) throws(ControlAPIError) -> ControlAPIReply {
        try allow(method, [.get, .post])
        if method == .get {
            return ControlAPIReply(try read { registry throws(ControlAPIError) in try registry.proxy(proxy).toxics })
        }
        let input = try decode(body, ToxicInput.init)
        return ControlAPIReply(
            try change { registry throws(ControlAPIError) in try registry.addToxic(input, to: proxy) })
    }

    private func toxic(
        _ name: String, of proxy: String, _ method: HTTPMethod, _ body: [UInt8]
    ) throws(ControlAPIError) -> ControlAPIReply {
        try allow(method, [.get, .post, .patch, .delete])
        switch method {
        case .get:
            return ControlAPIReply(try read { registry throws(ControlAPIError) in try registry.toxic(name, of: proxy) })
        case .delete:
            try change { registry throws(ControlAPIError) in try registry.removeToxic(name, of: proxy) }
            return .noContent
        default:
            let input = try decode(body, ToxicInput.init)
            return ControlAPIReply(
                try change { registry throws(ControlAPIError) in try registry.updateToxic(name, of: proxy, with: input)
                })
        }
    }

    func allow(_ method: HTTPMethod, _ allowed: [HTTPMethod]) throws(ControlAPIError) {
        guard allowed.contains(method) else {
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            throw ControlAPIError(
                .methodNotAllowed, "method \(method) not allowed; allowed: \(names)",
                allowedMethods: allowed.map(\.rawValue))
        }
    }

    /// Reads a JSON body with `read`; any failure (bad JSON, a duplicate key, a wrong type, a fractional
    /// attribute) is Toxiproxy's "bad request body".
    func decode<T>(_ body: [UInt8], _ read: (JSONValue) throws(JSONError) -> T) throws(ControlAPIError) -> T {
        do {
            return try read(try JSONValue.parse(body))
        } catch {
            throw ControlAPIError(.badRequest, "bad request body")
        }
    }
}
