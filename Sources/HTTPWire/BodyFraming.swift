/// How the content of a message is delimited on the wire (RFC 9112 §6.3); usable on its own, as a proxy does.
///
/// Rules, in order, for a response: 101, or 2xx to CONNECT, turns the connection into a `tunnel`; a response to
/// HEAD, a 1xx, 204 or 304 has `none`; Transfer-Encoding with chunked last is `chunked`, otherwise `untilClose`;
/// Content-Length gives `contentLength`; with neither, `untilClose`. For a request: Transfer-Encoding must end with
/// chunked; else Content-Length; else `none`. Both Content-Length and Transfer-Encoding, Transfer-Encoding in
/// HTTP/1.0, unknown codings and conflicting Content-Length values are errors (request smuggling, §11.2).
public enum BodyFraming: Sendable, Hashable {
    /// No content follows the head.
    case none
    /// Exactly this many content bytes follow.
    case contentLength(Int)
    /// Chunked transfer coding (RFC 9112 §7.1), ended by the last chunk and trailer section.
    case chunked
    /// Content runs until the connection closes (responses only).
    case untilClose
    /// The connection stops being HTTP/1.1 after the head (101, or 2xx to CONNECT).
    case tunnel

    /// The framing of a request's content.
    public init(request head: RequestHead) throws(HTTPWireError) {
        self = try FramingFields(head.fields).requestFraming(version: head.version, at: 0)
    }

    /// The framing of a response's content, given the method of the request it answers.
    public init(response head: ResponseHead, requestMethod: HTTPMethod) throws(HTTPWireError) {
        self = try FramingFields(head.fields).responseFraming(
            status: head.status, requestMethod: requestMethod, version: head.version, at: 0)
    }
}
