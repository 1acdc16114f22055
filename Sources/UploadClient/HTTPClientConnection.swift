import HTTPExchange
import HTTPWire
import SquallNet
import TLSKit

/// Squall's own HTTP/1.1 client connection (RFC 9112) over a plain or TLS `ByteStream`: one request at a time,
/// kept alive for the next one when both sides allow it.
///
/// Unlike Foundation's URLSession on Linux it hands every interim response to the caller (several 104s before
/// the final response), and it streams a request's content from a file descriptor in bounded chunks while it
/// reads responses, so a final response that arrives early (413, 401) stops the sending: the exchange itself is
/// `HTTPExchange.HTTPClientStream`'s.
///
/// ```swift
/// let connection = try HTTPClientConnection.open(to: url.endpoint, tls: nil, timeout: .seconds(10))
/// let response = try connection.exchange(head, body: RequestBody(fileDescriptor: fd, offset: 0, length: size),
///                                        readTimeout: .seconds(60), onInterim: { _ in true }, onBodySent: { _ in true })
/// ```
/// One thread drives a connection; to interrupt it from another thread, shut down the socket handed to
/// `open`'s `willConnect`.
public final class HTTPClientConnection {
    /// The most response content kept in `HTTPResponse.body`; more is read and discarded.
    public static let responseBodyLimit = 64 * 1024

    public let endpoint: HTTPEndpoint
    let client: HTTPClientStream?
    /// The shared HTTP/2 connection this one opens streams on, instead of an HTTP/1.1 connection of its own.
    let http2: HTTP2ClientConnection?
    private var reusable = true
    /// Whether the last exchange left the connection fit for another request (over HTTP/2: whether the shared
    /// connection still takes streams).
    public var isReusable: Bool {
        get { http2.map { reusable && $0.acceptsStreams } ?? reusable }
        set { reusable = newValue }
    }
    /// How many requests this connection has carried.
    public internal(set) var requestCount = 0

    init(endpoint: HTTPEndpoint, stream: any ByteStream) {
        self.endpoint = endpoint
        self.client = HTTPClientStream(stream: stream)
        self.http2 = nil
    }

    /// Requests on streams of `connection`, an HTTP/2 connection other transfers may share.
    init(endpoint: HTTPEndpoint, http2 connection: HTTP2ClientConnection) {
        self.endpoint = endpoint
        self.client = nil
        self.http2 = connection
    }

    deinit {
        client?.stream.close()
    }

    /// The protocol the requests go over.
    public var version: HTTPVersion { http2 == nil ? .http11 : .http2 }

    /// Connects to `endpoint` (TLS with `tls` when the endpoint is secure), within `timeout` for TCP and the
    /// handshake each. `willConnect` receives the socket first, so that another thread can shut it down.
    public static func open(
        to endpoint: HTTPEndpoint, tls: TLSContext?, timeout: Duration, willConnect: (Socket) -> Void = { _ in }
    ) throws(TransferError) -> HTTPClientConnection {
        let (stream, _) = try openStream(to: endpoint, tls: tls, timeout: timeout, willConnect: willConnect)
        return HTTPClientConnection(endpoint: endpoint, stream: stream)
    }

    /// The non-blocking stream `open` connects, and the protocol ALPN chose over TLS.
    static func openStream(
        to endpoint: HTTPEndpoint, tls: TLSContext?, timeout: Duration, willConnect: (Socket) -> Void
    ) throws(TransferError) -> (any ByteStream, String?) {
        let host = endpoint.host.hasPrefix("[") ? String(endpoint.host.dropFirst().dropLast()) : endpoint.host
        let socket: Socket
        do {
            socket = try TCPConnector.connect(to: SocketAddress(host: host, port: endpoint.port), timeout: timeout)
        } catch {
            throw TransferError.mapping(error, connecting: true)
        }
        willConnect(socket)
        do {
            let stream: any ByteStream
            var protocolName: String?
            if endpoint.secure {
                guard let tls else { throw TransferError(.invalidRequest, "no TLS context for \(endpoint)") }
                let secure = try TLSStream(socket: socket, context: tls, serverName: host)
                try secure.handshake(timeout: timeout)
                protocolName = secure.session?.alpn
                stream = secure
            } else {
                stream = PlainStream(socket: socket)
            }
            try socket.setNonBlocking(true)
            return (stream, protocolName)
        } catch {
            socket.close()
            throw TransferError.mapping(error)
        }
    }

    /// Closes the connection (over HTTP/2 it only stops using the shared one, which other transfers may be using).
    public func close() {
        isReusable = false
        client?.stream.close()
    }

    /// Sends `head` (with `Host` added) and `body`, and reads responses until the final one has ended.
    ///
    /// Interim responses go to `onInterim` as they arrive, even while the body is being sent; written content
    /// bytes go to `onBodySent`. Either returning false aborts the exchange (`TransferError.Code.cancelled`). A
    /// final response that arrives before the body is all sent stops the sending; the connection is then not
    /// reused. `readTimeout` bounds every wait for progress in either direction.
    ///
    /// Over HTTP/2 the request is a stream of the shared connection, and `willStart` receives what cancels that
    /// stream alone (`RST_STREAM`), for another thread to call; the other streams go on. A request the server did not
    /// process throws a `TransferError` that is `unprocessed`.
    public func exchange(
        _ head: RequestHead, body: RequestBody? = nil, readTimeout: Duration,
        onInterim: (ResponseHead) -> Bool = { _ in true }, onBodySent: (Int) -> Bool = { _ in true },
        onContent: ((ArraySlice<UInt8>) -> Void)? = nil,
        willStart: (@escaping @Sendable () -> Void) -> Void = { _ in }
    ) throws(TransferError) -> HTTPResponse {
        isReusable = false
        requestCount += 1
        var request = head
        request.fields = Self.withHost(endpoint.authority, head.fields)
        let response: HTTPResponse
        do {
            if let http2 {
                let ticket = HTTP2ClientConnection.Ticket()
                willStart { http2.cancel(ticket) }
                response = try http2.exchange(
                    request, body: body, progressTimeout: readTimeout, bodyLimit: .keepFirst(Self.responseBodyLimit),
                    ticket: ticket, onInterim: onInterim, onBodySent: onBodySent, onContent: onContent)
                isReusable = true
                return response
            }
            response = try client!.exchange(
                request, body: body, progressTimeout: readTimeout, bodyLimit: .keepFirst(Self.responseBodyLimit),
                onInterim: onInterim, onBodySent: onBodySent, onContent: onContent)
        } catch {
            throw TransferError.mapping(error)
        }
        isReusable = response.sentEverything && response.head.keepAlive && client!.keepAlive
        return response
    }

    /// The connection's stream, for a request written by the caller (a head in pieces, a body cut short);
    /// `readResponses` then reads what the server answers. HTTP/1.1 only.
    public var stream: any ByteStream { client!.stream }

    /// `head` as it goes on the wire, with `Host` added as `exchange` adds it.
    public func serialized(_ head: RequestHead) throws(TransferError) -> [UInt8] {
        var request = head
        request.fields = Self.withHost(endpoint.authority, head.fields)
        do {
            return try HTTP1Serializer.serialize(request)
        } catch {
            throw TransferError(.invalidRequest, "cannot send the request: \(error)")
        }
    }

    /// Reads the responses to a `method` request the caller wrote to `stream`: interim responses to `onInterim`
    /// as they arrive, then the final one. `readTimeout` bounds every wait; the connection is not reused after.
    public func readResponses(
        to method: HTTPMethod, readTimeout: Duration, onInterim: (ResponseHead) -> Bool = { _ in true }
    ) throws(TransferError) -> HTTPResponse {
        isReusable = false
        requestCount += 1
        do {
            return try client!.readResponses(
                to: method, progressTimeout: readTimeout, bodyLimit: .keepFirst(Self.responseBodyLimit),
                onInterim: onInterim)
        } catch {
            throw TransferError.mapping(error)
        }
    }

    /// `fields` with `Host` first (RFC 9112 §3.2), replacing any the caller set.
    static func withHost(_ authority: String, _ fields: HTTPFields) -> HTTPFields {
        var result: HTTPFields = ["Host": authority]
        for field in fields where field.name.lowercased() != "host" { result.append(field) }
        return result
    }
}
