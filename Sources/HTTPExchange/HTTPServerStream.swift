import HTTPWire
import SquallNet

/// The server role of a blocking HTTP/1.1 exchange over a `ByteStream` (RFC 9112): request heads read whole within
/// `limits` and a head deadline, bodies streamed as chunks of at most `bufferSize` bytes (Content-Length or
/// chunked, never a whole body), responses written, and a bounded drain before closing.
///
/// ```
///   firstHead(by: accept + head timeout) ─▶ nextBodyPart … .end (or collectBody(limit:)) ─▶ send(response)
///     ─▶ nextHead(idle timeout, head timeout) ─▶ …
///   any failure ─▶ send an error response ─▶ drainBeforeClose() ─▶ close
/// ```
/// One thread uses it at a time. Reads throw `HTTPExchangeError`; a parse error is thrown once the events parsed
/// before it (body bytes included) have been taken.
public final class HTTPServerStream {
    /// What the next part of a body is.
    public enum BodyPart {
        case data(ArraySlice<UInt8>)
        case end
    }

    public let stream: any ByteStream
    private var parser: HTTP1Parser
    private var pending: [HTTP1Event] = []
    private var pendingIndex = 0
    private var buffer: [UInt8]
    private var failure: HTTPExchangeError?

    /// Reads with `HTTP1Parser(role: .server, limits: limits)`, at most `bufferSize` bytes per read (default 64 KiB).
    public init(stream: any ByteStream, limits: HTTPLimits = HTTPLimits(), bufferSize: Int = 64 * 1024) {
        self.stream = stream
        self.parser = HTTP1Parser(role: .server, limits: limits)
        self.buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    /// Whether the messages read so far allow another request on this connection.
    public var keepAlive: Bool { parser.keepAlive }

    /// The first request head of a connection, which must be whole by `deadline` (the caller counts it from the
    /// accept, so a TLS handshake is included): silence or a trickle past it throws `headTimeout`, however late
    /// the first byte came. Nil when the peer closes before sending any of it (empty lines before a head are none of
    /// it) or fails before sending a byte.
    public func firstHead(by deadline: ContinuousClock.Instant) throws(HTTPExchangeError) -> RequestHead? {
        try readHead(silentUntil: deadline) { _ in deadline }
    }

    /// The next request head; nil when the peer closes, fails or stays silent for `idleTimeout` before sending any
    /// of it. Once its first byte arrived (perhaps in the read that ended the previous request), the head must be
    /// complete within `headTimeout` (else `headTimeout`), and a close before that is `closed`.
    public func nextHead(idleTimeout: Duration, headTimeout: Duration) throws(HTTPExchangeError) -> RequestHead? {
        try readHead(silentUntil: ContinuousClock.now.advanced(by: idleTimeout), silenceIsLate: false) { started in
            started.advanced(by: headTimeout)
        }
    }

    /// Reads until a request head is whole: waits for its first byte until `silentUntil` (past it: `headTimeout` when
    /// `silenceIsLate`, else nil), then until `headDeadline(first byte's arrival)`.
    private func readHead(
        silentUntil: ContinuousClock.Instant, silenceIsLate: Bool = true,
        headDeadline: (ContinuousClock.Instant) -> ContinuousClock.Instant
    ) throws(HTTPExchangeError) -> RequestHead? {
        let late = HTTPExchangeError(.headTimeout, "the request head is late")
        // The head may have begun in the last read, behind the previous request: its first byte arrived already.
        var started = parser.isInsideHead
        var deadline = started ? headDeadline(ContinuousClock.now) : silentUntil
        while true {
            if let event = nextPending() {
                guard case .requestHead(let head) = event else { continue }
                return head
            }
            if let failure { throw failure }
            let count: Int
            do {
                count = try read(deadline: deadline)
            } catch {
                guard started || (silenceIsLate && error.code == .timedOut) else { return nil }
                throw error.code == .timedOut ? late : error
            }
            if count == 0 {
                // Empty lines before a head are no part of it (RFC 9112 §2.2): the parser says whether one began.
                guard parser.isInsideHead else { return nil }
                throw HTTPExchangeError(.closed, "the peer closed inside a request head")
            }
            if !started {
                started = true
                deadline = headDeadline(ContinuousClock.now)
            }
            parse(count)
        }
    }

    /// The next part of the current request's body, waiting at most `timeout` for each read.
    public func nextBodyPart(timeout: Duration) throws(HTTPExchangeError) -> BodyPart {
        while true {
            if let event = nextPending() {
                switch event {
                case .body(let bytes): return .data(bytes)
                case .end: return .end
                default: continue
                }
            }
            if let failure { throw failure }
            let count = try read(deadline: ContinuousClock.now.advanced(by: timeout))
            if count == 0 { throw HTTPExchangeError(.closed, "the peer closed inside a request body") }
            parse(count)
        }
    }

    /// The whole body of `head`, at most `limit` bytes (else `bodyTooLarge`; a declared `Content-Length` is refused
    /// before any of it is read or a `100 Continue` sent), each read or write waiting at most `timeout`. Answers
    /// `Expect: 100-continue` (RFC 9110 §10.1.1). For small bodies only.
    public func collectBody(of head: RequestHead, limit: Int, timeout: Duration) throws(HTTPExchangeError) -> [UInt8] {
        let tooLarge = HTTPExchangeError(.bodyTooLarge, "request body over \(limit) bytes")
        if let declared = head.fields["Content-Length"].flatMap({ Int($0) }), declared > limit { throw tooLarge }
        if head.fields["Expect"]?.lowercased() == "100-continue" {
            do {
                try send(ResponseHead(status: 100, reason: "Continue"), timeout: timeout)
            } catch {
                throw .stream(error)
            }
        }
        var body: [UInt8] = []
        while case .data(let bytes) = try nextBodyPart(timeout: timeout) {
            guard body.count + bytes.count <= limit else { throw tooLarge }
            body.append(contentsOf: bytes)
        }
        return body
    }

    /// Writes `head` and `body` in one write, within `timeout`; a failure is the stream's own error (`NetError`,
    /// `TLSError`), as a server logs it.
    public func send(_ head: ResponseHead, body: [UInt8] = [], timeout: Duration) throws {
        try sendBody(HTTP1Serializer.serialize(head) + body, timeout: timeout)
    }

    /// Writes more of a response body whose head went out with `send` (a stream with no length), within `timeout`.
    public func sendBody(_ bytes: [UInt8], timeout: Duration) throws {
        try stream.writeAll(bytes, deadline: ContinuousClock.now.advanced(by: timeout))
    }

    /// Ends the write side, then drops what the peer still sends: `ByteStream.drainBeforeClose` (1 MiB, 2 s).
    public func drainBeforeClose(maxBytes: Int = 1 << 20, timeout: Duration = .seconds(2)) {
        buffer.withUnsafeMutableBytes { stream.drainBeforeClose(maxBytes: maxBytes, timeout: timeout, buffer: $0) }
    }

    private func nextPending() -> HTTP1Event? {
        guard pendingIndex < pending.count else { return nil }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    private func read(deadline: ContinuousClock.Instant) throws(HTTPExchangeError) -> Int {
        do {
            return try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
        } catch {
            throw HTTPExchangeError.stream(error)
        }
    }

    /// Parses the `count` bytes just read; the events' body slices share one copy of them. A malformed input keeps
    /// the events before the error, and the error waits in `failure` until they are taken.
    private func parse(_ count: Int) {
        let bytes = Array(buffer[..<count])
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        do {
            try parser.feed(bytes[...], into: &pending)
        } catch {
            failure = .malformed(error)
        }
    }
}
