import CNghttp2

/// A failure of an HTTP/2 session: libnghttp2's error code and what the session was doing.
public struct HTTP2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// libnghttp2's `nghttp2_error` (negative).
    public let code: Int32
    public let detail: String

    public init(code: Int32, _ doing: String) {
        self.code = code
        self.detail = "\(doing): " + String(cString: nghttp2_strerror(code))
    }

    /// Whether the error ends the connection (rather than one call).
    public var isFatal: Bool { code <= NGHTTP2_ERR_FATAL.rawValue }

    /// Whether the peer did not begin with the client connection preface (RFC 9113 §3.4): it speaks something else,
    /// such as HTTP/1.1.
    public var isBadPreface: Bool { code == NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue }

    public var description: String { "HTTP/2: \(detail)" }
}
