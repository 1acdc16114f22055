import HTTP2Wire
import HTTPExchange
import HTTPWire
import ProxyFlow
import SquallNet
import Synchronization

/// The upstream leg of an HTTP/2 client's connection when the upstream speaks HTTP/2 too (h2 to h2): one session
/// with the upstream, and each stream's `ProxyConnection` writing its request as HTTP/1.1 bytes into a socket pair
/// whose other end this back turns into a stream of that session. The mirror of `HTTP2Front`:
///
/// ```
///   ProxyConnection (stream 1's flow) ⇄ socket pair ⇄ HTTP/1.1 bytes ⇄ h2 session ⇄ upstream
///   ProxyConnection (stream 3's flow) ⇄ socket pair ⇄ …              ─┘
/// ```
/// A stream's faults act on its pair as on an HTTP/1.1 upstream connection: a flow that cuts its upstream side
/// resets the upstream stream (`RST_STREAM` `CANCEL`), the others go on. An upstream's reset or refusal of a stream
/// cuts its pair, and its code is handed to the front through the stream's handle, so that a `REFUSED_STREAM`
/// reaches the client as one (the request may be sent again). Runs on a thread of its own.
///
/// Backpressure: a pair is read only while less than `HTTP2Front.queueLimit` of its request waits for the upstream's
/// windows; the upstream's windows reopen only as its response is written into the pair.
final class HTTP2Back: Sendable {
    /// What other threads hand over: new pairs, and whether the back should stop.
    struct Inbox {
        var pairs: [(pair: MemoryStream, handle: ConnectionHandle)] = []
        var closing = false
        /// Set once the back takes no new stream (the upstream's `GOAWAY`, its end, or `close`).
        var over = false
    }

    private let inbox = Mutex(Inbox())
    private let wake: WakeSignal
    private let thread = Mutex<ConnectionThread?>(nil)

    /// Starts the session over `upstream` (connected, its TLS handshake done, `h2` chosen or known) on a thread.
    init(upstream: any ByteStream, scheme: String, capture: ConnectionCapture?) throws {
        wake = try WakeSignal()
        try Socket.setNonBlocking(upstream.fileDescriptor, true)
        var options = HTTP2Session.Options()
        options.manualWindowUpdates = true
        let loop = HTTP2BackLoop(
            upstream: upstream, session: try HTTP2Session(role: .client, options: options), scheme: scheme,
            capture: capture, wake: wake)
        let box = UncheckedBox(loop)
        let started = ConnectionThread(name: "squall-proxy-h2-upstream") { [self] in
            box.value.run { over in self.take(over: over) }
            // Pairs handed over while it ended are cut: their connections see an upstream that failed.
            for (pair, _) in take(over: true).pairs { pair.abort() }
        }
        thread.withLock { $0 = started }
    }

    /// The pairs handed over since the last call, and whether to stop; `over` says the back takes no more.
    private func take(over: Bool) -> (pairs: [(pair: MemoryStream, handle: ConnectionHandle)], closing: Bool) {
        inbox.withLock { state in
            if over { state.over = true }
            defer { state.pairs = [] }
            return (state.pairs, state.closing)
        }
    }

    /// Whether the back takes no new stream.
    var isOver: Bool { inbox.withLock { $0.over } }

    /// A new stream for `handle`'s connection: the end of a pair it writes its request into and reads its response
    /// from; nil when the back takes no new stream (a new back is then needed).
    func open(for handle: ConnectionHandle) throws -> MemoryStream? {
        let (mine, theirs) = try MemoryStream.pair(capacity: HTTP2Front.pairWriteLimit)
        let taken = inbox.withLock { state in
            guard !state.over else { return false }
            state.pairs.append((mine, handle))
            return true
        }
        guard taken else {
            mine.close()
            theirs.close()
            return nil
        }
        wake.signal()
        return theirs
    }

    /// Stops the back (its streams are cut, the upstream connection closed) and waits for its thread.
    func close() {
        inbox.withLock { $0.closing = true }
        wake.signal()
        thread.withLock { $0 }?.join()
    }
}

/// A value handed to another thread, used there only.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
