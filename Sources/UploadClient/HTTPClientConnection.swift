import Glibc
import HTTPWire
import SquallNet
import TLSKit

/// Squall's own HTTP/1.1 client connection (RFC 9112) over a plain or TLS `ByteStream`: one request at a time,
/// kept alive for the next one when both sides allow it.
///
/// Unlike Foundation's URLSession on Linux it hands every interim response to the caller (several 104s before
/// the final response), and it streams a request's content from a file descriptor in bounded chunks while it
/// reads responses, so a final response that arrives early (413, 401) stops the sending.
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
    let stream: any ByteStream
    var parser = HTTP1Parser(role: .client)
    /// Whether the last exchange left the connection fit for another request.
    public internal(set) var isReusable = true
    /// How many requests this connection has carried.
    public internal(set) var requestCount = 0
    let readBuffer: UnsafeMutableRawBufferPointer

    init(endpoint: HTTPEndpoint, stream: any ByteStream) {
        self.endpoint = endpoint
        self.stream = stream
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    }

    deinit {
        stream.close()
        readBuffer.deallocate()
    }

    /// Connects to `endpoint` (TLS with `tls` when the endpoint is secure), within `timeout` for TCP and the
    /// handshake each. `willConnect` receives the socket first, so that another thread can shut it down.
    public static func open(
        to endpoint: HTTPEndpoint, tls: TLSContext?, timeout: Duration, willConnect: (Socket) -> Void = { _ in }
    ) throws(TransferError) -> HTTPClientConnection {
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
            if endpoint.secure {
                guard let tls else { throw TransferError(.invalidRequest, "no TLS context for \(endpoint)") }
                let secure = try TLSStream(socket: socket, context: tls, serverName: host)
                try secure.handshake(timeout: timeout)
                stream = secure
            } else {
                stream = PlainStream(socket: socket)
            }
            try socket.setNonBlocking(true)
            return HTTPClientConnection(endpoint: endpoint, stream: stream)
        } catch {
            socket.close()
            throw TransferError.mapping(error)
        }
    }

    /// Closes the connection.
    public func close() {
        isReusable = false
        stream.close()
    }

    /// Sends `head` (with `Host` added) and `body`, and reads responses until the final one has ended.
    ///
    /// Interim responses go to `onInterim` as they arrive, even while the body is being sent; written content
    /// bytes go to `onBodySent`. Either returning false aborts the exchange (`TransferError.Code.cancelled`). A
    /// final response that arrives before the body is all sent stops the sending; the connection is then not
    /// reused. `readTimeout` bounds every wait for progress in either direction.
    public func exchange(
        _ head: RequestHead, body: RequestBody? = nil, readTimeout: Duration,
        onInterim: (ResponseHead) -> Bool = { _ in true }, onBodySent: (Int) -> Bool = { _ in true }
    ) throws(TransferError) -> HTTPResponse {
        isReusable = false
        requestCount += 1
        var request = head
        request.fields = Self.withHost(endpoint.authority, head.fields)
        let headBytes: [UInt8]
        do {
            headBytes = try HTTP1Serializer.serialize(request)
        } catch {
            throw TransferError(.invalidRequest, "cannot send the request: \(error)")
        }
        parser.expectResponse(to: head.method)
        var exchange = Exchange(headBytes: headBytes, body: body, readTimeout: readTimeout)
        let response = try exchange.run(on: self, onInterim: onInterim, onBodySent: onBodySent)
        isReusable = exchange.sentEverything && response.head.keepAlive && parser.keepAlive
        return response
    }

    /// `fields` with `Host` first (RFC 9112 §3.2), replacing any the caller set.
    static func withHost(_ authority: String, _ fields: HTTPFields) -> HTTPFields {
        var result: HTTPFields = ["Host": authority]
        for field in fields where field.name.lowercased() != "host" { result.append(field) }
        return result
    }
}

/// A request's content: `length` bytes of a file from `offset`, read with `pread` in chunks as the socket takes
/// them (never the whole file in memory).
public struct RequestBody: Sendable, Hashable {
    public var fileDescriptor: Int32
    public var offset: Int64
    public var length: Int64
    /// The size of each read. Default 64 KiB.
    public var chunkSize: Int

    public init(fileDescriptor: Int32, offset: Int64, length: Int64, chunkSize: Int = 64 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.offset = offset
        self.length = length
        self.chunkSize = chunkSize
    }
}

/// What an exchange got back.
public struct HTTPResponse: Sendable, Hashable {
    /// The most interim responses kept: `onInterim` sees every one, but a server sending a 104 per MiB of a large
    /// body (or a hostile one sending millions) must not grow the client's memory.
    public static let interimLimit = 64
    /// The first `interimLimit` interim (1xx) responses, in order.
    public var interims: [ResponseHead]
    /// The final response.
    public var head: ResponseHead
    /// The final response's content, at most `HTTPClientConnection.responseBodyLimit` bytes of it.
    public var body: [UInt8]
    /// How many content bytes were written before the final response ended the exchange.
    public var bodyBytesSent: Int64
}
