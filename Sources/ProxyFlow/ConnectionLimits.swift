/// The limits a proxied connection's client gets, so that idle and slow clients cost little and do not stay: the
/// listener's head and idle timeouts as the flow applies them. Nil is no limit.
///
/// ```
///   opened ─(client TLS, first whole head in http mode, first byte in tcp mode: headTimeout)─▶ upstream connected
///   http: response written ─(idle: nothing in flight, nothing queued; idleTimeout)─▶ next head's first byte
///         ─(headTimeout)─▶ whole head
/// ```
/// A head past its deadline is answered 408 with `Connection: close` (in tcp mode, where there is no head, the
/// connection just closes); an idle connection closes with FINs. tcp mode, and an http connection that switched
/// protocols, have no idle timeout: their bytes are opaque, so the proxy cannot tell idle from a slow exchange.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long after the opening the first request head may take to arrive whole (tcp mode: the first byte), the
    /// client's TLS handshake included; in http mode also how long each later head may take from its first byte.
    public var headTimeout: Duration?
    /// How long an http connection may sit between requests before the proxy closes it.
    public var idleTimeout: Duration?
    /// tcp mode only: connect the upstream as soon as the client leg is up, as Toxiproxy does, so that a protocol whose
    /// server speaks first (SMTP, MySQL) is heard; the head timeout then does not apply. Default false: on the first
    /// byte.
    public var upstreamAtAccept: Bool

    public init(headTimeout: Duration? = nil, idleTimeout: Duration? = nil, upstreamAtAccept: Bool = false) {
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.upstreamAtAccept = upstreamAtAccept
    }
}
