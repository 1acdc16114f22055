/// What a listener allows its peers, so that idle and slow ones cannot starve the others: a deadline for the first
/// request head counted from the accept, an idle time between requests, and a number of connections served at once.
///
/// ```
///   accept ──(TLS handshake, first head: headTimeout from the accept)──▶ request ─▶ response
///     ─▶ idle (idleTimeout) ─▶ next head (headTimeout from its first byte) ─▶ …
///   a connection over maximumConnections ─▶ 503 + Connection: close (HTTP listeners), never a silent queue
/// ```
/// Each listener documents its defaults (`UploadServerConfiguration`, `ChaosProxyConfiguration`, `ControlServer`).
public struct ListenerLimits: Sendable, Hashable {
    /// How long after the accept the connection's first request head may take to arrive whole, the TLS handshake
    /// included; also how long any later head may take from its first byte. A peer that sends nothing, or trickles
    /// its head, gets 408 when it passes (a TLS handshake still unfinished is closed without a byte).
    public var headTimeout: Duration
    /// How long a kept-alive connection may sit between requests before it is closed quietly.
    public var idleTimeout: Duration
    /// The most connections served at once; one more is answered 503 (`Connection: close`, a body naming the limit)
    /// and closed.
    public var maximumConnections: Int

    public init(headTimeout: Duration, idleTimeout: Duration, maximumConnections: Int) {
        precondition(headTimeout > .zero && idleTimeout > .zero, "listener timeouts must be more than zero")
        precondition(maximumConnections > 0, "a listener must allow at least one connection")
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }
}
