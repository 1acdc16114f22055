import Foundation
import HTTP2Wire
import HTTPWire
import SquallNet

/// The client side of one HTTP/2 connection (RFC 9113), shared by the threads that upload over it: one thread runs
/// the session and the socket, and each caller's `exchange` is a stream of its own, so that several uploads go on side
/// by side on one connection, as URLSession multiplexes them.
///
/// ```
///   exchange() on caller threads: submit head, queue content as the window drains ─┐        ┌─ run(): write ◀─ session
///        ▲ interims, final head, content, reset, GOAWAY ◀── streams' states ◀───────┴────────┴─ read ─▶ session ─▶ events
/// ```
/// At most the peer's `SETTINGS_MAX_CONCURRENT_STREAMS` streams are open at once; a caller beyond it waits. Once the
/// peer says `GOAWAY`, or the connection is retired, no stream opens on it; streams the peer did not process (above
/// the `GOAWAY`'s last stream, or reset with `REFUSED_STREAM`) end with `HTTPExchangeError.Code.refused`, safe to
/// send again on another connection. The connection ends when the peer closes it, when it fails, when a retired
/// connection has no stream left, or after `idleTimeout` without a stream.
public final class HTTP2ClientConnection: @unchecked Sendable {
    /// The scheme of the requests (`https` over TLS).
    public let scheme: String
    let stream: any ByteStream
    let idleTimeout: Duration
    /// Guards the session, the streams and the states below; callers wait on it.
    let condition = NSCondition()
    let session: HTTP2Session
    var streams: [Int32: StreamState] = [:]
    /// Set once the connection is over: every stream's caller stops waiting.
    var ended = false
    /// Why it ended, for the streams cut by it.
    var endReason = "the connection ended"
    /// The last stream a `GOAWAY` from the peer said it processes, once one came.
    var goawayLastStream: Int32?
    /// Set by `retire`: no new stream; the connection closes once its streams are done.
    var retired = false
    /// Callers waiting for a stream slot.
    var waitingForSlot = 0
    /// Set by `close`: the thread stops at once.
    private var closing = false
    private let wake: WakeSignal
    private var thread: ConnectionThread?

    /// A connection over `stream`, just opened (over TLS, after ALPN chose `h2`, or cleartext with prior knowledge);
    /// its thread starts at once.
    public init(stream: any ByteStream, scheme: String, idleTimeout: Duration) throws {
        self.stream = stream
        self.scheme = scheme
        self.idleTimeout = idleTimeout
        var options = HTTP2Session.Options()
        options.manualWindowUpdates = true
        options.settings = [
            HTTP2Setting(.enablePush, 0), HTTP2Setting(.initialWindowSize, 1 << 20),
        ]
        self.session = try HTTP2Session(role: .client, options: options)
        self.wake = try WakeSignal()
        thread = ConnectionThread(name: "squall-h2-client") { [self] in run() }
    }

    deinit {
        stream.close()
    }

    /// Whether a new exchange may start on this connection (it has not ended, been retired or told `GOAWAY`).
    public var acceptsStreams: Bool {
        locked { !ended && !retired && goawayLastStream == nil }
    }

    /// Whether the connection is over (its thread has ended or is ending).
    public var isOver: Bool {
        locked { ended }
    }

    /// Streams open now.
    public var openStreams: Int {
        locked { streams.count }
    }

    /// No new stream on this connection; it closes (`GOAWAY`) once the streams on it are done.
    public func retire() {
        locked {
            retired = true
            condition.broadcast()
        }
        wake.signal()
    }

    /// Ends the connection now: every stream on it fails with `closed`. Returns once its thread has.
    public func close() {
        locked {
            retired = true
            closing = true
            if !ended { endReason = "the connection was closed" }
        }
        wake.signal()
        thread?.join()
    }

    /// Runs `body` under the lock.
    func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// Wakes the connection's thread: a caller queued frames or took content.
    func poke() {
        wake.signal()
    }

    // MARK: The connection's thread

    /// What the loop carries from one turn to the next.
    private struct Loop {
        var output = HTTP2SessionOutput()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var idleSince = ContinuousClock.now
        /// Set once this side said `GOAWAY`: only what is left to write.
        var leaving = false
    }

    private func run() {
        var loop = Loop()
        do {
            try serve(&loop)
        } catch {
            locked { if endReason == "the connection ended" { endReason = "the connection failed: \(error)" } }
        }
        locked {
            ended = true
            for state in streams.values { state.connectionEnded(endReason, goaway: goawayLastStream) }
            streams.removeAll()
            condition.broadcast()
        }
        stream.close()
    }

    /// The session's next output; the callers waiting for their content to be framed are told.
    private func takeOutput() throws -> [UInt8] {
        try locked {
            let output = try session.takeOutput()
            if !output.isEmpty { condition.broadcast() }
            return output
        }
    }

    private func serve(_ loop: inout Loop) throws {
        while true {
            var interest: IOInterest
            switch try loop.output.write(to: stream, take: { try takeOutput() }) {
            case .again: continue
            case .proceed(let wanted): interest = wanted
            case .ended: return
            }
            let flushed = loop.output.flushed
            let (finished, open, leave, stop) = locked {
                (session.isFinished, !streams.isEmpty || waitingForSlot > 0, retired && streams.isEmpty, closing)
            }
            if stop || (finished && flushed) || (loop.leaving && flushed) { return }
            if open { loop.idleSince = .now }
            if !loop.leaving && (leave || (!open && ContinuousClock.now >= loop.idleSince + idleTimeout)) {
                locked {
                    retired = true
                    session.goAway()
                }
                loop.leaving = true
                continue
            }
            if !loop.leaving {
                switch try loop.buffer.withUnsafeMutableBytes({ try stream.read(into: $0) }) {
                case .done(let count):
                    let bytes = Array(loop.buffer[..<count])
                    try locked { dispatch(try session.receive(bytes)) }
                    continue
                case .wouldBlock(let wanted): interest.formUnion(wanted)
                case .endOfStream:
                    locked { if endReason == "the connection ended" { endReason = "the server closed the connection" } }
                    return
                }
            }
            if stream.bufferedReadableCount > 0 { continue }
            let deadline = open ? nil : loop.idleSince + idleTimeout
            try wake.wait(for: interest, on: stream.fileDescriptor, until: deadline)
        }
    }

    /// Hands what the peer said to the streams (under the lock).
    private func dispatch(_ events: [HTTP2Event]) {
        for event in events {
            switch event {
            case .headers(let id, let fields, let endStream):
                streams[id]?.received(fields, endStream: endStream)
            case .data(let id, let bytes):
                if let state = streams[id] {
                    state.received(bytes)
                    // The content is small (a response body kept up to a limit): its window reopens at once.
                    session.consume(bytes.count, on: id)
                } else {
                    session.consume(bytes.count, on: id)
                }
            case .endStream(let id):
                streams[id]?.responseEnded()
            case .reset(let id, let code):
                streams[id]?.unframedAtClose = session.unframedAtClose(on: id)
                streams[id]?.reset(code)
            case .closed(let id, let code):
                let state = streams.removeValue(forKey: id)
                state?.unframedAtClose = session.unframedAtClose(on: id) ?? state?.unframedAtClose
                state?.closed(code)
            case .goaway(let lastStream, _):
                goawayLastStream = min(goawayLastStream ?? .max, lastStream)
                for (id, state) in streams where id > lastStream {
                    state.refused("a GOAWAY's last stream is \(lastStream)")
                }
            case .settings, .pingAcknowledged, .windowUpdate, .ping:
                break
            }
        }
        condition.broadcast()
    }
}
