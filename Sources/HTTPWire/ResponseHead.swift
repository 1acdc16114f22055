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

    /// The reason phrase RFC 9110 §15 gives `status` (and 104's from the resumable-upload draft), empty for a
    /// status without one here (RFC 9112 §4 allows an empty phrase; clients ignore it).
    public static func standardReason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 104: "Upload Resumption Supported"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
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
