/// The head of a response: status line and fields (RFC 9112 §4).
public struct ResponseHead: Sendable, Hashable {
    public var version: HTTPVersion
    /// Three digits, 100...999 (RFC 9110 §15).
    public var status: Int
    /// The reason phrase, possibly empty; clients ignore it (RFC 9112 §4).
    public var reason: String
    public var fields: HTTPFields

    public init(version: HTTPVersion = .http11, status: Int, reason: String = "", fields: HTTPFields = [:]) {
        self.version = version
        self.status = status
        self.reason = reason
        self.fields = fields
    }

    /// An interim response (1xx, RFC 9110 §15.2), such as 100 Continue or 104 Upload Resumption Supported: it has
    /// no content and precedes the final response to the same request.
    public var isInformational: Bool {
        (100...199).contains(status)
    }

    /// Whether the connection persists after this response (RFC 9112 §9.3), judging from its version and
    /// `Connection` field only; a response read until close, or a 101, also ends the connection.
    public var keepAlive: Bool {
        ConnectionOptions(fields).persists(version: version)
    }
}
