import FaultEngine

/// The proxies and their toxics, as Toxiproxy's API manages them: a value whose operations either succeed or
/// throw without changing anything.
struct ToxiproxyRegistry: Sendable, Hashable {
    /// The listen address of a proxy created without one: loopback, ephemeral port.
    static let defaultListen = "127.0.0.1:0"

    private(set) var proxies: [String: ToxiproxyProxy] = [:]

    func proxy(_ name: String) throws(ControlAPIError) -> ToxiproxyProxy {
        guard let proxy = proxies[name] else { throw .proxyNotFound(name) }
        return proxy
    }

    /// Creates a proxy (`POST /proxies`); `enabled` defaults to true.
    mutating func create(_ input: ProxyInput) throws(ControlAPIError) -> ToxiproxyProxy {
        let proxy = try Self.newProxy(input, at: nil)
        guard proxies[proxy.name] == nil else { throw ControlAPIError(.alreadyExists, "proxy already exists") }
        proxies[proxy.name] = proxy
        return proxy
    }

    /// Updates `listen`, `upstream` and `enabled` where given (`POST /proxies/{name}`); toxics stay.
    mutating func update(_ name: String, _ input: ProxyInput) throws(ControlAPIError) -> ToxiproxyProxy {
        var proxy = try proxy(name)
        if let listen = input.listen, !listen.isEmpty { proxy.listen = listen }
        if let upstream = input.upstream, !upstream.isEmpty { proxy.upstream = upstream }
        if let enabled = input.enabled { proxy.enabled = enabled }
        proxies[name] = proxy
        return proxy
    }

    /// Records the address a proxy's listener bound (its real port when `listen` asked for port 0).
    mutating func setListen(_ address: String, of name: String) {
        proxies[name]?.listen = address
    }

    mutating func delete(_ name: String) throws(ControlAPIError) {
        guard proxies.removeValue(forKey: name) != nil else { throw .proxyNotFound(name) }
    }

    /// Creates or replaces proxies (`POST /populate`). As in Toxiproxy, a proxy whose `listen` and `upstream` are
    /// unchanged is left alone (toxics and `enabled` kept), so populating twice changes nothing; a changed one is
    /// replaced, without toxics. All inputs are checked before any is applied.
    mutating func populate(_ inputs: [ProxyInput]) throws(ControlAPIError) -> [ToxiproxyProxy] {
        var fresh: [ToxiproxyProxy] = []
        for (index, input) in inputs.enumerated() {
            fresh.append(try Self.newProxy(input, at: index + 1))
        }
        for proxy in fresh {
            if let existing = proxies[proxy.name], existing.listen == proxy.listen, existing.upstream == proxy.upstream
            {
                continue
            }
            proxies[proxy.name] = proxy
        }
        return fresh.compactMap { proxies[$0.name] }
    }

    /// Enables every proxy and removes every toxic (`POST /reset`).
    mutating func reset() {
        for name in proxies.keys {
            proxies[name]?.enabled = true
            proxies[name]?.toxics = []
        }
    }

    func toxic(_ toxicName: String, of proxyName: String) throws(ControlAPIError) -> ToxiproxyToxic {
        guard let toxic = try proxy(proxyName).toxics.first(where: { $0.name == toxicName }) else {
            throw .toxicNotFound(toxicName)
        }
        return toxic
    }

    /// Adds a toxic, validated by mapping it onto a fault rule; 409 when the proxy has one of that name.
    mutating func addToxic(_ input: ToxicInput, to proxyName: String) throws(ControlAPIError) -> ToxiproxyToxic {
        var proxy = try proxy(proxyName)
        let toxic = try Self.validated { () throws(FaultError) in
            try ToxiproxyToxic(
                name: input.name, type: input.type ?? "", stream: input.stream, toxicity: input.toxicity,
                attributes: input.attributes ?? [:])
        }
        guard !proxy.toxics.contains(where: { $0.name == toxic.name }) else {
            throw ControlAPIError(.alreadyExists, "toxic already exists")
        }
        proxy.toxics.append(toxic)
        proxies[proxyName] = proxy
        return toxic
    }

    /// Replaces a toxic's `toxicity` and merges its `attributes` (`POST /proxies/{name}/toxics/{toxic}`).
    mutating func updateToxic(
        _ toxicName: String, of proxyName: String, with input: ToxicInput
    ) throws(ControlAPIError) -> ToxiproxyToxic {
        var proxy = try proxy(proxyName)
        guard let index = proxy.toxics.firstIndex(where: { $0.name == toxicName }) else {
            throw .toxicNotFound(toxicName)
        }
        let current = proxy.toxics[index]
        let toxic = try Self.validated { () throws(FaultError) in
            try current.updated(toxicity: input.toxicity, attributes: input.attributes ?? [:])
        }
        proxy.toxics[index] = toxic
        proxies[proxyName] = proxy
        return toxic
    }

    mutating func removeToxic(_ toxicName: String, of proxyName: String) throws(ControlAPIError) {
        var proxy = try proxy(proxyName)
        guard let index = proxy.toxics.firstIndex(where: { $0.name == toxicName }) else {
            throw .toxicNotFound(toxicName)
        }
        proxy.toxics.remove(at: index)
        proxies[proxyName] = proxy
    }

    /// A proxy from its input, `name` and `upstream` required; `position` (1-based) names the entry in a populate.
    private static func newProxy(_ input: ProxyInput, at position: Int?) throws(ControlAPIError) -> ToxiproxyProxy {
        let suffix = position.map { " at proxy \($0)" } ?? ""
        guard let name = input.name, !name.isEmpty else { throw .missingField("name" + suffix) }
        guard let upstream = input.upstream, !upstream.isEmpty else { throw .missingField("upstream" + suffix) }
        let listen = input.listen.flatMap { $0.isEmpty ? nil : $0 } ?? defaultListen
        return ToxiproxyProxy(name: name, listen: listen, upstream: upstream, enabled: input.enabled ?? true)
    }

    private static func validated(
        _ make: () throws(FaultError) -> ToxiproxyToxic
    ) throws(ControlAPIError) -> ToxiproxyToxic {
        do {
            return try make()
        } catch {
            throw ControlAPIError(.badRequest, error.description)
        }
    }
}
