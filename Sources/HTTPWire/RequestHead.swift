/// The head of a request: request line and fields (RFC 9112 §3).
public struct RequestHead: Sendable, Hashable {
    public var method: HTTPMethod
    /// The request-target as sent: origin-form (`/path?query`), absolute-form, authority-form (CONNECT) or `*`.
    public var target: String
    public var version: HTTPVersion
    public var fields: HTTPFields

    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http11, fields: HTTPFields = [:]) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
    }

    /// Whether the connection persists after this request (RFC 9112 §9.3): not with `Connection: close`; by
    /// default from HTTP/1.1 on; for HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        ConnectionOptions(fields).persists(version: version)
    }
}
