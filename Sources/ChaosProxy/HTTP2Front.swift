import FaultEngine
import HTTP2Wire
import HTTPExchange
import HTTPWire
import ProxyFlow
import ProxyTranscript
import SquallNet

/// The client leg of a connection that chose HTTP/2: one session with the client, and each stream proxied as an
/// exchange of its own, by a `ProxyConnection` with its own flow whose client side is one end of a `MemoryStream` pair.
///
/// ```
///   client ⇄ h2 session ─ stream 1 ⇄ HTTP/1.1 bytes ⇄ memory pair ⇄ ProxyConnection (flow, faults, gate) ⇄ upstream
///                       ─ stream 3 ⇄ …
/// ```
/// So every fault of a flow applies per stream as it does per HTTP/1.1 connection (a cut at an upload offset
/// included, the announcement gate too), and the transcript, the oracle and the report read each stream as an
/// exchange. A flow that cuts its client side resets the stream (`RST_STREAM` `INTERNAL_ERROR`); the other streams
/// go on. Runs on the connection's thread; each stream's `ProxyConnection` on a thread of its own.
///
/// Backpressure: a stream's content is taken from the client's windows (1 MiB a stream) only as it is written into
/// its pair; a pair is read only while less than `queueLimit` of its response waits for the client's windows.
final class HTTP2Front {
    /// Until when every stream's windows stay shut (`window-stall` with `scope: connection`).
    var connectionStalledUntil: ContinuousClock.Instant?
    /// The client's content of streams let go, not yet given back to the connection's window (a connection-wide
    /// window stall holds it).
    private var releasedContent = 0
    /// Until when the client's `PING`s go unacknowledged (`ping-timeout`), and the ones held meanwhile.
    var pingsHeldUntil: ContinuousClock.Instant?
    var heldPings: [UInt64] = []
    /// Set once a `goaway` fault said the connection goes away: gracefully (it ends once its streams have), or at
    /// once.
    var goingAway: (graceful: Bool, sent: Bool)?
    let wake: WakeSignal

    private let client: any ByteStream
    /// The decrypted capture of the client leg (the connection's): the HTTP/2 frames as they went, which tshark
    /// decodes.
    private let capture: ConnectionCapture?
    let session: HTTP2Session
    private let start: (MemoryStream, Int32) -> (ConnectionThread, ConnectionHandle)
    /// The connection's own handle: a reset sent to it (a network switch resetting every connection, `POST
    /// /squall/connections/N/reset`) resets the client's TCP connection, every stream with it.
    let parent: ConnectionHandle
    /// Appends an event of connection `id` (a stream's, or `parent`'s) to the transcript: the resets and the `GOAWAY`
    /// only the front sees.
    let record: (_ id: Int, TranscriptEvent.Kind) -> Void
    var links: [Int32: Link] = [:]
    private var threads: [ConnectionThread] = []
    private var output = HTTP2SessionOutput()
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    private let idleTimeout: Duration
    /// The most response bytes of a stream waiting for the client's windows before its pair is no longer read.
    static let queueLimit = 1 << 20
    /// The most bytes waiting in a stream's pair in each direction.
    static let pairWriteLimit = 256 * 1024
    /// A queued write smaller than this takes the next one in (`Link.queue`).
    static let joinLimit = 64 * 1024

    /// A front over `client` (after its TLS handshake chose `h2`, or a cleartext connection that began with the
    /// preface); `start` runs a stream's `ProxyConnection` over its end of a pair, on a thread of its own.
    init(
        client: any ByteStream, parent: ConnectionHandle, idleTimeout: Duration, capture: ConnectionCapture?,
        wake: WakeSignal, record: @escaping (_ id: Int, TranscriptEvent.Kind) -> Void,
        start: @escaping (MemoryStream, Int32) -> (ConnectionThread, ConnectionHandle)
    ) throws {
        self.client = client
        self.parent = parent
        self.record = record
        self.wake = wake
        self.capture = capture
        self.idleTimeout = idleTimeout
        self.start = start
        var options = HTTP2Session.Options()
        options.manualWindowUpdates = true
        options.holdPings = true
        self.session = try HTTP2Session(role: .server, options: options)
    }

    /// Runs until the client goes, fails or stays idle with no stream open; then resets what is left and waits for
    /// the streams' connections.
    func run() {
        do {
            try serve()
        } catch {
            // A failed client leg or a client breaking the protocol: the streams end with it.
        }
        for link in links.values { link.pair.abort() }
        links.removeAll()
        if goingAway != nil { linger() }
        for thread in threads { thread.join() }
    }

    /// After a `GOAWAY`, the proxy's side of the connection ends (a FIN after the frames written) and what the client
    /// still sends is read and dropped (at most a second, 1 MiB) before it closes: a close with unread bytes would
    /// be an RST, which can discard the `GOAWAY` in the client's receive buffer before it reads it, and the client
    /// could not tell its requests were not processed.
    private func linger() {
        guard case .done? = try? client.shutdownWrite() else { return }
        let deadline = ContinuousClock.now + .seconds(1)
        var drained = 0
        while drained < 1 << 20, ContinuousClock.now < deadline {
            if client.bufferedReadableCount == 0 {
                guard (try? wake.wait(for: .read, on: client.fileDescriptor, until: deadline)) != nil else { return }
            }
            switch try? buffer.withUnsafeMutableBytes({ try client.read(into: $0) }) {
            case .done(let count)?: drained += count
            case .wouldBlock?: continue
            default: return
            }
        }
    }

    private func serve() throws {
        var idleSince = ContinuousClock.now
        while true {
            if parentWantsReset() {
                client.abort()
                return
            }
            takeSignals()
            releasePings()
            writePairs()
            try readPairs()
            try flushClient()
            if let goingAway, output.flushed, !goingAway.graceful || links.isEmpty { return }
            if !links.isEmpty { idleSince = .now }
            if session.isFinished && output.flushed { return }
            var clientInterest: IOInterest = .read
            if !output.flushed { clientInterest.insert(.write) }
            if client.bufferedReadableCount == 0 {
                let deadline = idleSince + idleTimeout
                if links.isEmpty && ContinuousClock.now >= deadline {
                    session.goAway()
                    try flushClient()
                    return
                }
                try wait(client: clientInterest, until: links.isEmpty ? deadline : nil)
            }
            let (count, ended) = try readClient()
            if count > 0 {
                capture?.received(Array(buffer[..<count])[...], from: .client)
                let events = try buffer.withUnsafeBytes { raw in
                    try session.receive(UnsafeRawBufferPointer(rebasing: raw[..<count]))
                }
                for event in events { try take(event) }
            }
            if ended { return }
        }
    }

    /// Reads what the client sent into `buffer`, as many reads as it takes until the socket has no more or the
    /// buffer is full (a TLS read gives one record, 16 KiB at most): the frames of a whole burst then go through the
    /// session, and the pairs, at once. Returns the count read and whether the client's stream ended.
    private func readClient() throws -> (count: Int, ended: Bool) {
        var count = 0
        var ended = false
        try buffer.withUnsafeMutableBytes { raw in
            reading: while count < raw.count {
                switch try client.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...])) {
                case .done(let read):
                    count += read
                    if read == 0 { break reading }
                case .wouldBlock:
                    break reading
                case .endOfStream:
                    ended = true
                    break reading
                }
            }
        }
        return (count, ended)
    }

    // MARK: The client's side

    private func take(_ event: HTTP2Event) throws {
        switch event {
        case .headers(let stream, let fields, let endStream):
            if links[stream] != nil {
                // Trailers: dropped; they may end the content.
                if endStream { endRequest(stream) }
                return
            }
            try open(stream, fields, endStream: endStream)
        case .data(let stream, let bytes):
            guard let link = links[stream], !link.requestEnded else { return session.consume(bytes.count, on: stream) }
            link.queue(link.chunked ? HTTP1Serializer.chunk(bytes) : bytes, content: bytes.count)
        case .endStream(let stream):
            endRequest(stream)
        case .reset(let stream, let code):
            // The client gave up on the stream: its exchange is cut as a client's RST cuts a connection.
            if let link = removeLink(stream) {
                record(link.handle.id, .streamReset(side: .client, code: code.rawValue))
                link.pair.abort()
            }
        case .closed(let stream, _):
            if let link = removeLink(stream) {
                if link.responseEnded { link.pair.close() } else { link.pair.abort() }
            }
        case .ping(let opaque):
            if pingsHeld { heldPings.append(opaque) } else { session.acknowledgePing(opaque) }
        case .goaway, .settings, .pingAcknowledged, .windowUpdate:
            break
        }
    }

    /// A new stream: its request as HTTP/1.1 bytes into a new pair, whose other end a `ProxyConnection` serves.
    private func open(_ stream: Int32, _ fields: [HTTPField], endStream: Bool) throws {
        guard var head = HTTP2Heads.request(fields) else { return session.reset(stream, code: .protocolError) }
        head.version = .http11
        let chunked = !endStream && !head.fields.contains("Content-Length")
        if chunked { head.fields.append(name: "Transfer-Encoding", value: "chunked") }
        let bytes: [UInt8]
        do {
            bytes = try HTTP1Serializer.serialize(head)
        } catch {
            return session.reset(stream, code: .protocolError)
        }
        let (mine, theirs) = try MemoryStream.pair(capacity: Self.pairWriteLimit)
        let (thread, handle) = start(theirs, stream)
        threads.append(thread)
        let link = Link(pair: mine, method: head.method, chunked: chunked, handle: handle)
        link.parser.expectResponse(to: head.method)
        link.outgoing.append((bytes, 0))
        if endStream {
            link.requestEnded = true
        }
        links[stream] = link
    }

    /// Lets go of `stream`'s link: the client's content it still held (unwritten, or held by a window stall) goes
    /// back to the windows, the connection's above all, which the other streams share.
    @discardableResult
    func removeLink(_ stream: Int32) -> Link? {
        guard let link = links.removeValue(forKey: stream) else { return nil }
        releasedContent += link.dropOutgoing() + link.unconsumed
        link.unconsumed = 0
        releaseContent()
        return link
    }

    /// Gives the content of streams let go back to the connection's window, unless a connection-wide stall holds it.
    private func releaseContent() {
        guard releasedContent > 0, !(connectionStalledUntil.map { $0 > .now } ?? false) else { return }
        // Stream 0 is no stream: the session takes the count from the connection's window only.
        session.consume(releasedContent, on: 0)
        releasedContent = 0
    }

    private func endRequest(_ stream: Int32) {
        guard let link = links[stream], !link.requestEnded else { return }
        link.requestEnded = true
        // The last chunk with no trailer fields (which cannot fail).
        if link.chunked, let last = try? HTTP1Serializer.lastChunk() { link.queue(last, content: 0) }
    }

    private func flushClient() throws {
        try output.flush(to: client, take: { try session.takeOutput() }, sent: { capture?.sent($0, to: .client) })
    }

    // MARK: The pairs

    /// Writes what waits for each pair, as far as it takes it; content written is consumed from the client's
    /// windows.
    private func writePairs() {
        releaseContent()
        for (stream, link) in links {
            while let first = link.outgoing.first {
                let outcome = try? link.pair.send(first.bytes[link.written...])
                guard case .done(let count)? = outcome, count > 0 else {
                    // Full for now, or the exchange's connection is gone (its end shows when the pair is read):
                    // what waits is dropped, and so is what comes after.
                    if outcome == nil { link.unconsumed += link.dropOutgoing() }
                    break
                }
                link.written += count
                if link.written == first.bytes.count {
                    link.outgoing.removeFirst()
                    link.written = 0
                    link.unconsumed += first.content
                }
            }
            // The windows reopen by what was forwarded, unless a window stall holds them shut.
            if link.unconsumed > 0 && !isStalled(link) {
                session.consume(link.unconsumed, on: stream)
                link.unconsumed = 0
            }
        }
    }

    /// Reads each pair whose stream has room and turns its HTTP/1.1 response into frames.
    private func readPairs() throws {
        for stream in Array(links.keys) {
            guard let link = links[stream], !link.responseEnded, session.queuedCount(on: stream) < Self.queueLimit
            else { continue }
            let outcome = try? buffer.withUnsafeMutableBytes { try link.pair.read(into: $0) }
            if case .wouldBlock? = outcome { continue }
            guard case .done(let count)? = outcome else {
                // The exchange's connection closed or was cut before its response ended: so is the stream, with
                // the code of the `reset-stream` that cut it, if one did; unless a `goaway` it fired refused it.
                takeSignals(of: stream)
                guard links[stream] != nil else { continue }
                let chosen = link.handle.streamResetCode.load(ordering: .acquiring)
                resetStream(stream, link, code: chosen == .max ? .internalError : HTTP2ErrorCode(rawValue: chosen))
                removeLink(stream)
                link.pair.close()
                continue
            }
            let events: [HTTP1Event]
            do {
                events = try link.parser.feed(Array(buffer[..<count])[...])
            } catch {
                resetStream(stream, link, code: .internalError)
                removeLink(stream)
                link.pair.abort()
                continue
            }
            for event in events { try respond(event, on: stream, link) }
            if link.responseEnded {
                // The exchange is over: its connection ends; content the client still sends is refused.
                if !link.requestEnded { session.reset(stream, code: .noError, afterEnd: true) }
            }
        }
    }

    private func respond(_ event: HTTP1Event, on stream: Int32, _ link: Link) throws {
        switch event {
        case .responseHead(let head):
            let bodyless = !head.isInformational && (link.method == .head || head.status == 204 || head.status == 304)
            try session.submitResponse(HTTP2Heads.fields(of: head), on: stream, endStream: bodyless)
            if !head.isInformational {
                link.finalSent = true
                if bodyless { link.responseEnded = true }
            }
        case .body(let bytes):
            session.send(Array(bytes), on: stream)
        case .end:
            if !link.responseEnded {
                session.end(stream)
                link.responseEnded = true
            }
        case .upgrade, .opaque, .requestHead:
            session.reset(stream, code: .internalError)
            link.responseEnded = true
        }
    }

    private func isStalled(_ link: Link) -> Bool {
        let now = ContinuousClock.now
        return (link.stalledUntil.map { $0 > now } ?? false) || (connectionStalledUntil.map { $0 > now } ?? false)
    }

    /// The next moment a window stall ends, when one holds content back.
    private var stallEnds: ContinuousClock.Instant? {
        let released = releasedContent > 0 ? connectionStalledUntil.flatMap { $0 > .now ? $0 : nil } : nil
        return links.values.filter { $0.unconsumed > 0 && isStalled($0) }
            .compactMap { link in
                [link.stalledUntil, connectionStalledUntil].compactMap { $0 }.filter { $0 > .now }.min()
            }
            .reduce(released) { earliest, end in min(earliest ?? end, end) }
    }

    /// Polls the client for `interest`, the wake signal and every pair that has something to read or write, until one
    /// is ready or `deadline` (nil: no deadline) or a window stall's end.
    private func wait(client interest: IOInterest, until deadline: ContinuousClock.Instant?) throws {
        var descriptors = [(descriptor: client.fileDescriptor, interest: interest)]
        if parent.wakeDescriptor >= 0 { descriptors.append((parent.wakeDescriptor, .read)) }
        for (stream, link) in links {
            var wanted: IOInterest = []
            if !link.outgoing.isEmpty { wanted.insert(.write) }
            if !link.responseEnded && session.queuedCount(on: stream) < Self.queueLimit { wanted.insert(.read) }
            let polled = link.pair.pollInterest(for: wanted)
            if !polled.isEmpty { descriptors.append((link.pair.fileDescriptor, polled)) }
        }
        let pingsReleased = heldPings.isEmpty ? nil : pingsHeldUntil
        try wake.wait(for: descriptors, until: [deadline, stallEnds, pingsReleased].compactMap { $0 }.min())
    }
}
