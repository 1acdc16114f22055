import FaultEngine

/// One proxy in Toxiproxy's model, `{name, listen, upstream, enabled, toxics}`, as its API shows it.
public struct ToxiproxyProxy: Sendable, Hashable, Encodable {
    public let name: String
    /// The address the proxy listens on, `host:port`; port 0 asks for an ephemeral one.
    public var listen: String
    /// The address it forwards to, `host:port`.
    public var upstream: String
    /// Whether it accepts connections (false: down, as Toxiproxy's "down" toggle).
    public var enabled: Bool
    /// The toxics in the order they were added.
    public var toxics: [ToxiproxyToxic]

    public init(name: String, listen: String, upstream: String, enabled: Bool = true, toxics: [ToxiproxyToxic] = []) {
        self.name = name
        self.listen = listen
        self.upstream = upstream
        self.enabled = enabled
        self.toxics = toxics
    }

    /// The fault rules of the toxics, in order.
    public var rules: [FaultRule] { toxics.map(\.rule) }
}
