/// What a completed handshake agreed on.
public struct TLSSessionInfo: Sendable, Equatable {
    /// The protocol version, e.g. `TLSv1.3` or `TLSv1.2`.
    public var protocolVersion: String
    /// The cipher suite, in OpenSSL's naming, e.g. `TLS_AES_256_GCM_SHA384` or `ECDHE-ECDSA-AES256-GCM-SHA384`.
    public var cipher: String
    /// The ALPN protocol both sides agreed on (RFC 7301), or nil when none was.
    public var alpn: String?
    /// The SNI host name (RFC 6066 §3): on a server, what the client asked for; on a client, what it sent.
    /// Nil when none was sent (clients send none for IP literals).
    public var serverName: String?
    /// The subject of the peer's certificate (RFC 2253 form), or nil when the peer sent none.
    public var peerSubject: String?

    public init(protocolVersion: String, cipher: String, alpn: String?, serverName: String?, peerSubject: String?) {
        self.protocolVersion = protocolVersion
        self.cipher = cipher
        self.alpn = alpn
        self.serverName = serverName
        self.peerSubject = peerSubject
    }
}
