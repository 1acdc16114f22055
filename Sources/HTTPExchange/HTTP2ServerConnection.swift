import Foundation
import HTTP2Wire
import HTTPWire
import SquallNet

/// The server side of one HTTP/2 connection (RFC 9113): one thread runs the session and the socket, and each
/// request stream is served on a thread of its own by `handler`, through an `HTTP2ServerExchange`, so that uploads
/// multiplexed on the connection go on side by side.
///
/// ```
///   socket ⇄ run(): read ─▶ session ─▶ events ─▶ exchanges (their queues)   ◀─ handler threads take content,
///                   write ◀─ session ◀─ heads, content, resets ◀──────────────── send responses
/// ```
/// Content is taken from the connection's windows only as handlers read it (each stream's window, 1 MiB by default,
/// bounds what waits in memory for it). Limits: at most `maxConcurrentStreams` streams at once (the peer is told
/// in `SETTINGS`); the first request's head must be whole by the first-head deadline; a connection without open
/// streams is closed with `GOAWAY` after `idleTimeout`.
public final class HTTP2ServerConnection: @unchecked Sendable {
    public struct Limits: Sendable {
        /// How long a connection with no open stream stays.
        public var idleTimeout: Duration
        /// Streams open at once (`SETTINGS_MAX_CONCURRENT_STREAMS`). Default 100.
        public var maxConcurrentStreams: UInt32 = 100
        /// Each stream's window (`SETTINGS_INITIAL_WINDOW_SIZE`). Default 1 MiB.
        public var streamWindow: UInt32 = 1 << 20

        public init(idleTimeout: Duration) {
            self.idleTimeout = idleTimeout
        }
    }

    /// Serves one request stream: called on a thread of its own for each stream the peer opens.
    public typealias Handler = @Sendable (HTTP2ServerExchange) -> Void

    private let stream: any ByteStream
    private let limits: Limits
    /// Guards the session, the exchanges and `ended`; exchanges wait on it.
    let condition = NSCondition()
    let session: HTTP2Session
    private var exchanges: [Int32: HTTP2ServerExchange] = [:]
    private var handlers: [ConnectionThread] = []
    /// Set once the connection is over: exchanges stop waiting.
    private(set) var ended = false
    private let wake: WakeSignal

    /// A connection over `stream`, which has just been accepted (over TLS, after ALPN chose `h2`).
    public init(stream: any ByteStream, limits: Limits) throws {
        self.stream = stream
        self.limits = limits
        var options = HTTP2Session.Options()
        options.manualWindowUpdates = true
        options.settings = [
            HTTP2Setting(.maxConcurrentStreams, limits.maxConcurrentStreams),
            HTTP2Setting(.initialWindowSize, limits.streamWindow), HTTP2Setting(.enablePush, 0),
        ]
        self.session = try HTTP2Session(role: .server, options: options)
        self.wake = try WakeSignal()
    }

    /// Runs the connection until the peer goes away, it fails, or it stays idle; every handler has returned when
    /// this does. The first request head must be whole by `firstHeadDeadline`.
    public func run(firstHeadDeadline: ContinuousClock.Instant, handler: @escaping Handler) {
        var loop = Loop(deadline: firstHeadDeadline)
        do {
            try serve(&loop, handler: handler)
        } catch {
            // A failed socket or a peer breaking the protocol ends the connection; the handlers see it end.
        }
        locked {
            ended = true
            for exchange in exchanges.values { exchange.connectionEnded() }
            exchanges.removeAll()
            condition.broadcast()
        }
        for thread in handlers { thread.join() }
        stream.close()
    }

    /// What the connection loop carries from one turn to the next.
    private struct Loop {
        /// When the connection ends unless a stream is open (the first head's deadline, then the idle timeout).
        var deadline: ContinuousClock.Instant
        var output = HTTP2SessionOutput()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        /// Set once this side said GOAWAY for idleness: no more reading, only what is left to write.
        var leaving = false
    }

    private func serve(_ loop: inout Loop, handler: @escaping Handler) throws {
        while true {
            var interest: IOInterest
            switch try loop.output.write(to: stream, take: { try locked { try session.takeOutput() } }) {
            case .again: continue
            case .proceed(let wanted): interest = wanted
            case .ended: return
            }
            let (finished, open) = locked { (session.isFinished, !exchanges.isEmpty) }
            if finished && loop.output.flushed { return }
            if loop.leaving && !open && loop.output.flushed { return }
            if open { loop.deadline = .now + limits.idleTimeout }
            if !loop.leaving {
                switch try readSome(&loop) {
                case .done(let count):
                    let bytes = Array(loop.buffer[..<count])
                    try locked { dispatch(try session.receive(bytes), handler: handler) }
                    continue
                case .wouldBlock(let wanted): interest.formUnion(wanted)
                case .endOfStream:
                    // The peer is gone (or the server is stopping): nothing more can come for any stream.
                    return
                }
            }
            if !open && ContinuousClock.now >= loop.deadline {
                // Idle (or no request in time): say so and go.
                locked { session.goAway() }
                loop.leaving = true
                if loop.output.flushed {
                    // The GOAWAY (kept: the write step sends it next), or nothing left to say.
                    loop.output = HTTP2SessionOutput(bytes: try locked { try session.takeOutput() })
                    if loop.output.flushed { return }
                }
                continue
            }
            try waitFor(interest, until: loop.deadline)
        }
    }

    private func readSome(_ loop: inout Loop) throws -> IOOutcome {
        try loop.buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
    }

    /// Polls the socket for `interest` and the wake signal, until one is ready or `deadline`.
    private func waitFor(_ interest: IOInterest, until deadline: ContinuousClock.Instant) throws {
        if stream.bufferedReadableCount > 0 { return }
        try wake.wait(for: interest, on: stream.fileDescriptor, until: deadline)
    }

    /// Hands what the peer said to the exchanges (under the lock).
    private func dispatch(_ events: [HTTP2Event], handler: @escaping Handler) {
        for event in events {
            switch event {
            case .headers(let id, let fields, let endStream):
                if let exchange = exchanges[id] {
                    // Trailers: nothing in them is used; they may end the content.
                    if endStream { exchange.contentEnded() }
                } else if let head = HTTP2Heads.request(fields) {
                    let exchange = HTTP2ServerExchange(connection: self, stream: id, head: head, ended: endStream)
                    exchanges[id] = exchange
                    handlers.removeAll { $0.join(timeout: .zero) }
                    handlers.append(
                        ConnectionThread(name: "squall-h2-stream") {
                            handler(exchange)
                            exchange.handlerReturned()
                        })
                } else {
                    session.reset(id, code: .protocolError)
                }
            case .data(let id, let bytes):
                if let exchange = exchanges[id] {
                    exchange.received(bytes)
                } else {
                    session.consume(bytes.count, on: id)
                }
            case .endStream(let id):
                exchanges[id]?.contentEnded()
            case .reset(let id, let code):
                exchanges[id]?.resetByPeer(code)
            case .closed(let id, let code):
                exchanges.removeValue(forKey: id)?.closed(code)
            case .goaway, .settings, .pingAcknowledged, .windowUpdate, .ping:
                break
            }
        }
        condition.broadcast()
    }

    /// Runs `body` under the lock.
    func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// Wakes the connection's loop: an exchange queued frames or took content.
    func poke() {
        wake.signal()
    }
}
