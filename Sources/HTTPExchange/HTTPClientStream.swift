import HTTPWire
import SquallNet

/// The client role of a blocking HTTP/1.1 exchange over a non-blocking `ByteStream` (RFC 9112): one request at a
/// time, its body streamed from a `RequestBody` while responses are read, every interim response handed over as it
/// arrives (several 104s before the final response), the final response's body kept up to a limit.
/// A final response that arrives before the body is all sent stops the sending. One thread uses it at a time; to
/// interrupt it from another, shut down its socket.
public final class HTTPClientStream {
    public let stream: any ByteStream
    var parser: HTTP1Parser
    let readBuffer: UnsafeMutableRawBufferPointer

    /// Reads responses with `HTTP1Parser(role: .client, limits: limits)`, 64 KiB per read.
    public init(stream: any ByteStream, limits: HTTPLimits = HTTPLimits()) {
        self.stream = stream
        self.parser = HTTP1Parser(role: .client, limits: limits)
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Whether the responses read so far allow another request on this connection.
    public var keepAlive: Bool { parser.keepAlive }

    /// Sends `head` as it is and `body`, and reads responses until the final one has ended.
    ///
    /// Interim responses go to `onInterim` as they arrive, even while the body is being sent; written content
    /// bytes go to `onBodySent`. Either returning false ends the exchange with `cancelled`. `progressTimeout` bounds
    /// every wait for progress in either direction (`timedOut`); `bodyLimit` says how much of the final response's
    /// content is kept (default: the first 64 KiB, the rest read and dropped); `onContent`, when given, sees all
    /// of it as it arrives (a digest of a body too large to keep).
    public func exchange(
        _ head: RequestHead, body: RequestBody? = nil, progressTimeout: Duration,
        bodyLimit: ResponseBodyLimit = .keepFirst(64 * 1024),
        onInterim: (ResponseHead) -> Bool = { _ in true }, onBodySent: (Int) -> Bool = { _ in true },
        onContent: ((ArraySlice<UInt8>) -> Void)? = nil
    ) throws(HTTPExchangeError) -> HTTPResponse {
        let headBytes: [UInt8]
        do {
            headBytes = try HTTP1Serializer.serialize(head)
        } catch {
            throw HTTPExchangeError(.invalidRequest, "cannot send the request: \(error)", wireError: error)
        }
        parser.expectResponse(to: head.method)
        var exchange = Exchange(headBytes: headBytes, body: body, timeout: progressTimeout, bodyLimit: bodyLimit)
        exchange.onContent = onContent
        return try exchange.run(on: self, onInterim: onInterim, onBodySent: onBodySent)
    }

    /// Reads the responses to a `method` request the caller wrote to `stream` itself (a head sent in pieces, say):
    /// every interim response to `onInterim` as it arrives, then the final one, as `exchange` does.
    public func readResponses(
        to method: HTTPMethod, progressTimeout: Duration, bodyLimit: ResponseBodyLimit = .keepFirst(64 * 1024),
        onInterim: (ResponseHead) -> Bool = { _ in true }
    ) throws(HTTPExchangeError) -> HTTPResponse {
        parser.expectResponse(to: method)
        var exchange = Exchange(headBytes: [], body: nil, timeout: progressTimeout, bodyLimit: bodyLimit)
        exchange.writingHead = false
        exchange.sending = false
        return try exchange.run(on: self, onInterim: onInterim, onBodySent: { _ in true })
    }
}

/// How much of a final response's content an exchange keeps.
public enum ResponseBodyLimit: Sendable, Hashable {
    /// Keep the first `n` bytes; read and drop the rest.
    case keepFirst(Int)
    /// Keep up to `n` bytes; more is `HTTPExchangeError.Code.bodyTooLarge`.
    case refuseOver(Int)

    /// Appends what the limit lets through of `bytes` to `body`, the content kept so far.
    func keep(_ bytes: ArraySlice<UInt8>, in body: inout [UInt8]) throws(HTTPExchangeError) {
        switch self {
        case .keepFirst(let limit):
            let room = limit - body.count
            if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
        case .refuseOver(let limit):
            guard body.count + bytes.count <= limit else {
                throw HTTPExchangeError(.bodyTooLarge, "the response body is over \(limit) bytes")
            }
            body.append(contentsOf: bytes)
        }
    }
}

/// A request's content, read in chunks as the socket takes them: `length` bytes of a file from `offset` (with
/// `pread`, never the whole file in memory), or a few bytes in memory.
public struct RequestBody: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case file(descriptor: Int32, offset: Int64)
        case bytes([UInt8])
    }

    let source: Source
    public let length: Int64
    /// The size of each file read. Default 64 KiB.
    public var chunkSize: Int

    public init(fileDescriptor: Int32, offset: Int64, length: Int64, chunkSize: Int = 64 * 1024) {
        self.source = .file(descriptor: fileDescriptor, offset: offset)
        self.length = length
        self.chunkSize = chunkSize
    }

    /// `bytes` as the content, written in one piece after the head.
    public init(bytes: [UInt8]) {
        self.source = .bytes(bytes)
        self.length = Int64(bytes.count)
        self.chunkSize = bytes.count
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
    /// The final response's content, as much as the exchange's `ResponseBodyLimit` kept.
    public var body: [UInt8]
    /// How many content bytes were written before the final response ended the exchange.
    public var bodyBytesSent: Int64
    /// Whether the head and all the content went out (else the connection must not carry another request).
    public var sentEverything: Bool
}
