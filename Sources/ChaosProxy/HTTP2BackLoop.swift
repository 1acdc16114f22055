import HTTP2Wire
import HTTPExchange
import HTTPWire
import ProxyFlow
import SquallNet

/// The back's loop, on its own thread (`HTTP2Back`): the upstream's session on one side, the streams' pairs on the
/// other, each request translated from HTTP/1.1 and each response back.
final class HTTP2BackLoop {
    /// One stream: its pair and its exchange.
    struct Link {
        let pair: MemoryStream
        let handle: ConnectionHandle
        var parser = HTTP1Parser(role: .server)
        /// The upstream stream, once the request head went.
        var stream: Int32?
        var method = HTTPMethod.get
        /// HTTP/1.1 response bytes to write into the pair, each with how many of them are the upstream's content
        /// (consumed from its windows once written, or when the link is let go unwritten).
        var outgoing: [(bytes: [UInt8], content: Int)] = []
        var written = 0
        var chunked = false
        var finalHead = false
        var requestEnded = false
        var responseEnded = false
        /// The upstream stream closed (after the whole response): what the pair still sends is dropped.
        var upstreamClosed = false
    }

    /// Handed-over pairs and whether to stop; `over` tells the back to take no more.
    typealias Inbox = (_ over: Bool) -> (pairs: [(pair: MemoryStream, handle: ConnectionHandle)], closing: Bool)

    private let upstream: any ByteStream
    private let session: HTTP2Session
    private let scheme: String
    private let capture: ConnectionCapture?
    private let wake: WakeSignal
    private var links: [Int: Link] = [:]
    private var nextKey = 0
    private var streams: [Int32: Int] = [:]
    private var output = HTTP2SessionOutput()
    private var buffer = [UInt8](repeating: 0, count: HTTP2Front.pairWriteLimit)
    /// Set once the upstream's `GOAWAY` came: no new stream is opened.
    private var goneAway = false
    /// Set once the upstream connection is over (its end, its failure, or its session finished): only the responses
    /// already whole are still written into their pairs.
    private var upstreamDone = false
    /// Set when it ended by a failure (then the upstream is aborted, not closed).
    private var upstreamFailed = false

    init(upstream: any ByteStream, session: HTTP2Session, scheme: String, capture: ConnectionCapture?, wake: WakeSignal)
    {
        self.upstream = upstream
        self.session = session
        self.scheme = scheme
        self.capture = capture
        self.wake = wake
    }

    /// Runs until the back is closed, or the upstream connection is over and the responses it completed are written;
    /// a failed upstream cuts every stream at once.
    func run(take inbox: Inbox) {
        var graceful = false
        do {
            graceful = try serve(inbox)
        } catch {
            // The upstream failed or broke the protocol: its streams end with it.
        }
        for (pair, _) in inbox(true).pairs { pair.abort() }
        for key in Array(links.keys) { drop(key, abort: true) }
        if graceful {
            upstream.close()
            capture?.mark(CaptureMark(.upstream, .proxy, .fin))
        } else {
            upstream.abort()
            capture?.mark(CaptureMark(.upstream, .proxy, .rst))
        }
    }

    /// Serves until the end; true when it ended gracefully (closed, or the upstream went with its streams done).
    private func serve(_ inbox: Inbox) throws -> Bool {
        while true {
            wake.drain()
            let (pairs, closing) = inbox(goneAway || upstreamDone)
            if closing {
                session.goAway()
                try? flushUpstream()
                return true
            }
            for (pair, handle) in pairs {
                if upstreamDone {
                    pair.abort()
                    continue
                }
                links[nextKey] = Link(pair: pair, handle: handle)
                nextKey += 1
            }
            writePairs()
            readPairs()
            if upstreamDone {
                if links.isEmpty { return !upstreamFailed }
                try wait(upstream: nil)
                continue
            }
            do {
                try exchangeWithUpstream()
            } catch {
                // The upstream reset the connection (a server closing with unread bytes after its GOAWAY does) or
                // broke the protocol: what it completed still reaches the clients.
                upstreamFailed = true
                finishUpstream()
            }
        }
    }

    /// One turn with the upstream: writes what the session has, waits for the upstream or a pair, reads what came.
    private func exchangeWithUpstream() throws {
        try flushUpstream()
        if output.flushed && (session.isFinished || (goneAway && links.isEmpty)) { return finishUpstream() }
        var interest: IOInterest = .read
        if !output.flushed { interest.insert(.write) }
        if upstream.bufferedReadableCount == 0 { try wait(upstream: interest) }
        switch try buffer.withUnsafeMutableBytes({ try upstream.read(into: $0) }) {
        case .done(let count):
            let bytes = Array(buffer[..<count])
            capture?.received(bytes[...], from: .upstream)
            for event in try session.receive(bytes) { take(event) }
        case .wouldBlock:
            break
        case .endOfStream:
            finishUpstream()
        }
    }

    /// The upstream connection is over: the streams whose response did not end are cut; the others are written out.
    private func finishUpstream() {
        upstreamDone = true
        for (key, link) in links where !link.responseEnded { drop(key, abort: true, reset: nil, link: link) }
    }

    private func flushUpstream() throws {
        try output.flush(to: upstream, take: { try session.takeOutput() }, sent: { capture?.sent($0, to: .upstream) })
    }

    /// Lets go of the link at `key` (`link`: as the caller holds it, else as stored): its pair is aborted or closed,
    /// its upstream stream reset with `reset` unless the upstream already closed it, and the content it held
    /// unwritten goes back to the upstream's windows.
    private func drop(_ key: Int, abort: Bool, reset: HTTP2ErrorCode? = nil, link held: Link? = nil) {
        guard let link = held ?? links[key] else { return }
        links[key] = nil
        if let stream = link.stream {
            if let reset, !link.upstreamClosed, streams[stream] == key { session.reset(stream, code: reset) }
            if streams[stream] == key { streams[stream] = nil }
            session.consume(link.outgoing.reduce(0) { $0 + $1.content }, on: stream)
        }
        if abort { link.pair.abort() } else { link.pair.close() }
    }

    // MARK: The upstream's side

    private func take(_ event: HTTP2Event) {
        switch event {
        case .headers(let stream, let fields, let endStream):
            guard let key = streams[stream], var link = links[key] else { return }
            respond(fields, endStream: endStream, &link)
            if streams[stream] == key { links[key] = link }
        case .data(let stream, let bytes):
            guard let key = streams[stream], var link = links[key], !link.responseEnded else {
                return session.consume(bytes.count, on: stream)
            }
            link.outgoing.append((link.chunked ? HTTP1Serializer.chunk(bytes) : bytes, bytes.count))
            links[key] = link
        case .endStream(let stream):
            guard let key = streams[stream], var link = links[key] else { return }
            endResponse(&link)
            links[key] = link
        case .reset(let stream, let code):
            guard let key = streams[stream], var link = links[key] else { return }
            guard link.responseEnded else {
                // The upstream reset the stream (it is closed: no reset goes back): its exchange is cut.
                link.upstreamClosed = true
                hand(code, to: link)
                return drop(key, abort: true, link: link)
            }
            // A reset after a whole response (a server refusing the rest of a request it answered early): the
            // response still reaches the client.
            streams[stream] = nil
            link.upstreamClosed = true
            links[key] = link
        case .closed(let stream, let code):
            guard let key = streams[stream], var link = links[key] else { return }
            link.upstreamClosed = true
            // A stream closed before its response ended (refused by a `GOAWAY`, reset): its exchange is cut.
            guard link.responseEnded else {
                hand(code == .noError ? .internalError : code, to: link)
                return drop(key, abort: true, link: link)
            }
            streams[stream] = nil
            links[key] = link
        case .goaway:
            goneAway = true
        case .settings, .pingAcknowledged, .windowUpdate, .ping:
            break
        }
    }

    /// A response head from the upstream as HTTP/1.1: an interim one as it is; a final one framed by its
    /// Content-Length, else chunked (HTTP/2 frames its content itself). A head that cannot be one cuts the stream.
    private func respond(_ fields: [HTTPField], endStream: Bool, _ link: inout Link) {
        guard !link.finalHead else {
            // Trailers: dropped; they may end the content.
            if endStream { endResponse(&link) }
            return
        }
        var head = HTTP2Heads.response(fields)
        head?.version = .http11
        if var final = head, !final.isInformational {
            link.finalHead = true
            let bodyless = link.method == .head || final.status == 204 || final.status == 304
            if !bodyless && !final.fields.contains("Content-Length") {
                if endStream {
                    final.fields.append(name: "Content-Length", value: "0")
                } else {
                    final.fields.append(name: "Transfer-Encoding", value: "chunked")
                    link.chunked = true
                }
            }
            head = final
        }
        guard let head, let bytes = try? HTTP1Serializer.serialize(head) else {
            if let stream = link.stream, let key = streams[stream] {
                drop(key, abort: true, reset: .protocolError, link: link)
            }
            return
        }
        link.outgoing.append((bytes, 0))
        if endStream && link.finalHead { endResponse(&link) }
    }

    private func endResponse(_ link: inout Link) {
        guard link.finalHead, !link.responseEnded else { return }
        link.responseEnded = true
        if link.chunked, let last = try? HTTP1Serializer.lastChunk() { link.outgoing.append((last, 0)) }
    }

    /// Tells the front (through the stream's handle) which code the upstream ended the stream with, unless a fault
    /// of the stream's flow already chose one.
    private func hand(_ code: HTTP2ErrorCode, to link: Link) {
        _ = link.handle.streamResetCode.compareExchange(
            expected: .max, desired: code.rawValue, ordering: .acquiringAndReleasing)
    }

    // MARK: The pairs

    /// Writes what waits for each pair; the upstream's content written reopens its windows. A response written
    /// whole after the upstream connection ended closes its pair; a pair that takes nothing more cuts its stream.
    private func writePairs() {
        for key in Array(links.keys) {
            guard var link = links[key] else { continue }
            var failed = false
            while let first = link.outgoing.first {
                let outcome = try? link.pair.send(first.bytes[link.written...])
                guard case .done(let count)? = outcome, count > 0 else {
                    failed = outcome == nil
                    break
                }
                link.written += count
                if link.written == first.bytes.count {
                    link.outgoing.removeFirst()
                    link.written = 0
                    if let stream = link.stream { session.consume(first.content, on: stream) }
                }
            }
            if failed {
                // The stream's connection is gone: so is the stream.
                drop(key, abort: true, reset: .cancel, link: link)
            } else if upstreamDone && link.responseEnded && link.outgoing.isEmpty {
                drop(key, abort: false, link: link)
            } else {
                links[key] = link
            }
        }
    }

    /// Reads each pair whose stream has room and turns its HTTP/1.1 request into a stream of the session. A pair's
    /// end is its exchange's: a stream whose response did not end is reset (`CANCEL`).
    private func readPairs() {
        for key in Array(links.keys) {
            guard var link = links[key] else { continue }
            if let stream = link.stream, !link.upstreamClosed, session.queuedCount(on: stream) >= HTTP2Front.queueLimit
            {
                continue
            }
            var chunks: [ArraySlice<UInt8>] = []
            switch try? link.pair.take(max: HTTP2Front.pairWriteLimit, { chunks.append($0) }) {
            case .done?: break
            case .wouldBlock?: continue
            case .endOfStream?, nil:
                let over = link.responseEnded && link.outgoing.isEmpty
                drop(key, abort: !over, reset: over ? nil : .cancel, link: link)
                continue
            }
            // The rest of a request the upstream answered and closed the stream of is read and dropped (as an
            // HTTP/1.1 server drains it), until the stream's connection ends.
            guard !link.upstreamClosed, !upstreamDone else { continue }
            do {
                for chunk in chunks {
                    for event in try link.parser.feed(chunk) { try request(event, &link, key: key) }
                }
                links[key] = link
            } catch {
                drop(key, abort: true, reset: .cancel, link: link)
            }
        }
    }

    private struct Refused: Error {}

    private func request(_ event: HTTP1Event, _ link: inout Link, key: Int) throws {
        switch event {
        case .requestHead(let head):
            // One request a pair: a stream's connection carries one exchange.
            guard link.stream == nil, !goneAway else {
                hand(.refusedStream, to: link)
                throw Refused()
            }
            let framing = try BodyFraming(request: head)
            let bodyless = framing == .none || framing == .contentLength(0)
            do {
                let stream = try session.submitRequest(HTTP2Heads.fields(of: head, scheme: scheme), endStream: bodyless)
                link.stream = stream
                link.method = head.method
                link.requestEnded = bodyless
                streams[stream] = key
            } catch {
                hand(.refusedStream, to: link)
                throw Refused()
            }
        case .body(let bytes):
            if let stream = link.stream, !link.requestEnded { session.send(Array(bytes), on: stream) }
        case .end:
            if let stream = link.stream, !link.requestEnded {
                session.end(stream)
                link.requestEnded = true
            }
        case .upgrade, .opaque, .responseHead:
            throw Refused()
        }
    }

    /// Polls the upstream for `interest` (nil: not at all), the wake signal and every pair with something to read
    /// or write.
    private func wait(upstream interest: IOInterest?) throws {
        var descriptors: [(descriptor: Int32, interest: IOInterest)] = []
        if let interest { descriptors.append((upstream.fileDescriptor, interest)) }
        for link in links.values {
            var wanted: IOInterest = []
            if !link.outgoing.isEmpty { wanted.insert(.write) }
            let room =
                link.upstreamClosed || link.stream.map { session.queuedCount(on: $0) < HTTP2Front.queueLimit } ?? true
            if room { wanted.insert(.read) }
            let polled = link.pair.pollInterest(for: wanted)
            if !polled.isEmpty { descriptors.append((link.pair.fileDescriptor, polled)) }
        }
        try wake.wait(for: descriptors, until: nil)
    }
}
