/// What `HTTP1Parser` found in the bytes it was fed, in stream order.
public enum HTTP1Event: Sendable, Hashable {
    /// A complete request head (server role).
    case requestHead(RequestHead)
    /// A complete response head (client role). An interim (1xx) head is complete by itself: no `.body` or `.end`
    /// follows it, and more heads follow for the same request, the last one final.
    case responseHead(ResponseHead)
    /// Content bytes of the current message, a slice of the bytes fed (no copy); chunked framing removed.
    case body(ArraySlice<UInt8>)
    /// The current message is complete, with its trailer fields (empty unless chunked with trailers).
    case end(trailers: HTTPFields)
    /// The connection leaves HTTP/1.1 after the head just reported (101 Switching Protocols, or a 2xx response to
    /// CONNECT). The exchange is complete; every later byte comes as `.opaque`.
    case upgrade
    /// Bytes of the connection after an `.upgrade`, passed through untouched.
    case opaque(ArraySlice<UInt8>)
}
