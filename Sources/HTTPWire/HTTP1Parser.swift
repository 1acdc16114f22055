/// An incremental, strict HTTP/1.1 message parser (RFC 9112): a value-type state machine, bytes in, events out.
///
/// The server role parses requests, the client role responses. Feed chunks of any size as they arrive; each call
/// returns the events its bytes completed. Heads are buffered (bounded by `HTTPLimits`); content is never
/// buffered: `.body` events are slices of the bytes fed. After `.end` the next message of the same stream follows
/// (keep-alive, pipelining). After an error the parser stays failed and rethrows it.
///
/// The server role reads CONNECT and `Upgrade` requests as requests without content and goes on reading HTTP; a
/// server that accepts one stops feeding the parser and relays the connection's later bytes itself.
///
/// ```
///            +-----------------------------------------------------------------+
///            |                                                                 |
///            v         none / Content-Length: 0 --> .end ---------------------+
///   +----------------+                                                        |
///   |      head      |--- Content-Length: n ---> fixedBody(n) --> .end -------+
///   | start line,    |                                                        |
///   | field lines,   |--- chunked ---> chunkSize --size 0--> trailers --> .end +
///   | empty line     |                  ^     |
///   +----------------+                  |  size n > 0
///     |        |                        |     v
///     |        |                 chunkDataCR/LF <-- chunkData(n)
///     |        +--- read until close ---> untilClose --finish()--> .end --> finished
///     +--- 101, 2xx to CONNECT ---> .upgrade, opaque (every later byte is .opaque)
///
///   Client role: a 1xx other than 101 is a complete head by itself and stays in `head`, so several 104s may
///   precede the final response; the method of each response comes from `expectResponse(to:)`, in order.
///   Any state --error--> failed (rethrows); finish() in the middle of a message --> failed(.truncated).
/// ```
public struct HTTP1Parser: Sendable {
    /// Which side of the connection this parser reads.
    public enum Role: Sendable, Hashable {
        /// Parses requests.
        case server
        /// Parses responses.
        case client
    }

    /// Where the parser is in the stream; see the diagram above.
    enum State: Sendable {
        /// Reading a head; then to any content state, or back to `head` (no content, interim response).
        case head
        /// Reading Content-Length content; then `head`.
        case fixedBody(remaining: Int)
        /// Reading a chunk-size line; then `chunkData`, or `trailers` after the last chunk.
        case chunkSize
        /// Reading chunk data; then `chunkDataCR`.
        case chunkData(remaining: Int)
        /// Expecting the CR after chunk data; then `chunkDataLF` (or `chunkSize` on a bare LF, when allowed).
        case chunkDataCR
        /// Expecting the LF after chunk data; then `chunkSize`.
        case chunkDataLF
        /// Reading the trailer section; then `head`.
        case trailers
        /// Content until the connection closes; `finish()` goes to `finished`.
        case untilClose
        /// Not HTTP any more (after an upgrade); `finish()` goes to `finished`.
        case opaque
        /// After `finish()`: nothing more may be fed.
        case finished
        /// After an error, which every later call throws again.
        case failed
    }

    public let role: Role
    public let limits: HTTPLimits
    /// Whether the connection may carry another message after the current one (RFC 9112 §9.3), as of the last
    /// head: false after `Connection: close`, an HTTP/1.0 message without `Connection: keep-alive`, a response read
    /// until close, or an upgrade.
    public internal(set) var keepAlive = true

    var state = State.head
    /// The error that failed the parser, thrown again by every later call.
    var failure: HTTPWireError?
    var section = SectionBuilder()
    /// The bytes of a section (head, chunk-size line or trailers) that began in an earlier feed: stream bytes
    /// `sectionStart..<sectionStart + carried.count`. A section that arrives in one feed is read in place and its
    /// fields copied once, when it ends.
    var carried: [UInt8] = []
    /// Stream offset of the first byte of the current section.
    var sectionStart = 0
    /// Stream offset of the first byte of the current line.
    var lineStart = 0
    /// Stream offset of the first byte of the current head, empty lines before it included.
    var messageStart = 0
    /// The longest line of the current section, and the stream offset its lines must end before; see
    /// `setSectionLimits()`.
    var lineLimit = 0
    var sectionLimit = 0
    /// Stream offset of the first byte of the current `feed`.
    var streamOffset = 0
    /// Methods of the requests whose responses are still to come (client role), oldest first.
    var expectedMethods: [HTTPMethod] = []

    public init(role: Role, limits: HTTPLimits = HTTPLimits()) {
        self.role = role
        self.limits = limits
        setSectionLimits()
    }

    /// Whether the parser stands between messages: the last one ended (or none began) and no byte of the next one
    /// has been fed. A server's idle time between requests is spent here.
    public var isBetweenMessages: Bool {
        guard case .head = state else { return false }
        return sectionStart == streamOffset
    }

    /// Whether a head has begun (some of its bytes, or empty lines before it, were fed) and is not complete yet.
    public var isInsideHead: Bool {
        guard case .head = state else { return false }
        return sectionStart < streamOffset
    }

    /// Client role: the next response not yet expected answers a request with `method` (needed for HEAD and
    /// CONNECT framing). Call once per request sent, in order; a response with none expected is read as for GET.
    public mutating func expectResponse(to method: HTTPMethod) {
        expectedMethods.append(method)
    }

    /// Parses `bytes` (any size, even empty) and returns the events they complete.
    public mutating func feed(_ bytes: [UInt8]) throws(HTTPWireError) -> [HTTP1Event] {
        var events: [HTTP1Event] = []
        try feed(bytes[...], into: &events)
        return events
    }

    /// Parses `bytes` and returns the events they complete.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) throws(HTTPWireError) -> [HTTP1Event] {
        var events: [HTTP1Event] = []
        try feed(bytes, into: &events)
        return events
    }

    /// Parses `bytes`, appending the events they complete to `events`; on error, the events found before it stay
    /// in `events` (a complete pipelined request before a malformed one, say). Reusing `events` saves allocations.
    public mutating func feed(_ bytes: ArraySlice<UInt8>, into events: inout [HTTP1Event]) throws(HTTPWireError) {
        if let failure { throw failure }
        if case .finished = state, !bytes.isEmpty {
            throw fail(HTTPWireError(.dataAfterFinish, "bytes fed after finish()", offset: streamOffset))
        }
        do {
            try bytes.withUnsafeBufferPointer { (buffer) throws(HTTPWireError) in
                try run(buffer, slicing: bytes, into: &events)
            }
        } catch {
            throw fail(error)
        }
        streamOffset += bytes.count
    }

    /// Signals the end of the input (the peer closed). Ends a response read until close; at a message boundary
    /// does nothing; in the middle of a message, or while a client still expects a response, throws `.truncated`.
    public mutating func finish() throws(HTTPWireError) -> [HTTP1Event] {
        if let failure { throw failure }
        switch state {
        case .untilClose:
            state = .finished
            return [.end(trailers: HTTPFields())]
        case .opaque, .finished:
            state = .finished
            return []
        case .head where isBetweenMessages && expectedMethods.isEmpty:
            state = .finished
            return []
        default:
            throw fail(HTTPWireError(.truncated, "input ended inside a message (\(state))", offset: streamOffset))
        }
    }

    /// Records `error` as the parser's failure and returns it.
    private mutating func fail(_ error: HTTPWireError) -> HTTPWireError {
        failure = error
        state = .failed
        return error
    }

    /// Consumes all of `buffer`, the bytes of `bytes`.
    private mutating func run(
        _ buffer: UnsafeBufferPointer<UInt8>, slicing bytes: ArraySlice<UInt8>, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        var index = 0
        let base = bytes.startIndex
        while index < buffer.count {
            switch state {
            case .head, .chunkSize, .trailers:
                index = try consumeLine(buffer, from: index, into: &events)
            case .fixedBody(let remaining):
                let count = min(remaining, buffer.count - index)
                events.append(.body(bytes[(base + index)..<(base + index + count)]))
                index += count
                if count == remaining {
                    endMessage(trailers: HTTPFields(), nextAt: streamOffset + index, into: &events)
                } else {
                    state = .fixedBody(remaining: remaining - count)
                }
            case .chunkData(let remaining):
                let count = min(remaining, buffer.count - index)
                events.append(.body(bytes[(base + index)..<(base + index + count)]))
                index += count
                state = count == remaining ? .chunkDataCR : .chunkData(remaining: remaining - count)
            case .chunkDataCR, .chunkDataLF:
                try consumeChunkTerminator(buffer[index], at: streamOffset + index)
                index += 1
            case .untilClose:
                events.append(.body(bytes[(base + index)...]))
                index = buffer.count
            case .opaque:
                events.append(.opaque(bytes[(base + index)...]))
                index = buffer.count
            case .finished, .failed:
                preconditionFailure("run() is not entered when finished or failed")
            }
        }
        switch state {
        case .head, .chunkSize, .trailers: carry(buffer, upTo: buffer.count)
        default: break
        }
    }

    /// The CRLF after chunk data (RFC 9112 §7.1).
    private mutating func consumeChunkTerminator(_ byte: UInt8, at offset: Int) throws(HTTPWireError) {
        switch (state, byte) {
        case (.chunkDataCR, ByteClass.carriageReturn):
            state = .chunkDataLF
        case (.chunkDataCR, ByteClass.lineFeed) where limits.allowsBareLineFeed, (.chunkDataLF, ByteClass.lineFeed):
            state = .chunkSize
            beginSection(at: offset + 1)
        case (.chunkDataCR, ByteClass.lineFeed):
            throw HTTPWireError(.bareLineFeed, "chunk data ended by a bare LF", offset: offset)
        case (.chunkDataLF, _):
            throw HTTPWireError(.bareCarriageReturn, "CR after chunk data not followed by LF", offset: offset)
        default:
            throw HTTPWireError(.invalidChunkTerminator, "chunk data not followed by CRLF", offset: offset)
        }
    }

    /// Completes the current message; the next one starts at stream offset `next`.
    mutating func endMessage(trailers: HTTPFields, nextAt next: Int, into events: inout [HTTP1Event]) {
        events.append(.end(trailers: trailers))
        state = .head
        messageStart = next
        beginSection(at: next)
    }

    /// Starts a section (head, chunk-size line or trailers) at stream offset `offset`.
    mutating func beginSection(at offset: Int) {
        section.reset()
        if !carried.isEmpty { carried.removeAll(keepingCapacity: true) }
        sectionStart = offset
        lineStart = offset
        setSectionLimits()
    }
}
