import Capture
import FaultEngine
import Glibc
import HTTPWire
import ProxyFlow
import ProxyTranscript
import SquallNet
import Synchronization
import TLSKit

/// What all of a proxy's listeners share: the connection registry, the transcript, the counters and the clock
/// origin (transcript times are measured from it).
struct ProxyShared: Sendable {
    let registry = ConnectionRegistry()
    let transcript: TranscriptStore
    let counters = ProxyCounters()
    let origin = ContinuousClock.now
    let laneCapacity: Int
    /// The pcap of every connection's decrypted legs; nil captures nothing.
    let capture: DecryptedCapture?

    var now: Duration { ContinuousClock.now - origin }
}

/// How one listener's connections are set up.
struct ListenerSettings: Sendable {
    var name: String
    var upstream: UpstreamTarget
    var mode: ConnectionFlow.Mode
    /// The client-facing TLS context (leaves per SNI); nil accepts plain TCP.
    var clientTLS: TLSContext?
    /// The upstream TLS context, for https upstreams.
    var upstreamTLS: TLSContext?
    var seed: UInt64
    var maximumConnections: Int
}

/// One listening socket of the proxy and the connections it accepts, each on its own thread: accept, judge
/// the connection rules (`refuse` answers with an RST before any byte), the client TLS handshake, the upstream
/// connection (and its TLS), then a `ProxyConnection` until the end.
final class ProxyListener: Sendable {
    let settings: ListenerSettings
    let engine: EngineBox
    private let shared: ProxyShared
    private let loop: AcceptLoop
    private let accepted = Atomic<Int>(0)

    var address: SocketAddress { loop.address }

    init(address: SocketAddress, settings: ListenerSettings, engine: EngineBox, shared: ProxyShared) throws {
        self.settings = settings
        self.engine = engine
        self.shared = shared
        let box = HandlerBox()
        self.loop = try AcceptLoop(
            address: address,
            configuration: AcceptLoopConfiguration(
                maximumConnections: settings.maximumConnections, name: "proxy-\(settings.name)")
        ) { socket in box.listener?.serve(socket) }
        box.set(self)
    }

    /// Stops accepting, stops the connections and waits (bounded) for their threads.
    func stop() {
        loop.stop()
        for handle in shared.registry.all(listener: settings.name) { handle.send(.stop) }
        _ = loop.waitUntilIdle(timeout: .seconds(10))
    }

    private func serve(_ socket: Socket) {
        let id = shared.registry.nextID()
        let nth = accepted.add(1, ordering: .relaxed).newValue
        shared.counters.accepted.add(1, ordering: .relaxed)
        shared.counters.open.add(1, ordering: .relaxed)
        defer { shared.counters.open.subtract(1, ordering: .relaxed) }
        let client = (try? socket.peerAddress().description) ?? "unknown"
        let handle = ConnectionHandle(id: id, listener: settings.name, client: client, mode: settings.mode.rawValue)
        shared.registry.insert(handle)
        defer { shared.registry.remove(id) }
        record(id, .opened(client: client, listener: address.description))
        var flow = ConnectionFlow(
            id: id, mode: settings.mode, seed: settings.seed ^ (UInt64(id) &* 0x9e37_79b9_7f4a_7c15))
        flow.forwardedProto = settings.mode == .http ? (settings.clientTLS == nil ? "http" : "https") : nil
        for decision in engine.handle(.connectionOpened(connection: id, nth: nth, time: shared.now)).decisions {
            flow.apply(decision, at: shared.now)
        }
        shared.transcript.append(flow.takeEvents())
        let capture = shared.capture.flatMap { ConnectionCapture(capture: $0, accepted: socket) }
        let ending = connect(socket, id: id, flow: &flow, capture: capture).map { streams in
            ProxyConnection(
                handle: handle, flow: flow, client: streams.client, upstream: streams.upstream, engine: engine,
                registry: shared.registry, transcript: shared.transcript, counters: shared.counters,
                origin: shared.origin, laneCapacity: shared.laneCapacity, capture: capture
            ).run()
        }
        // Gone from the live list before its close is recorded: whoever waits on the transcript sees both.
        shared.registry.remove(id)
        if let ending { record(id, .closed(side: ending.side, kind: ending.kind)) }
        _ = engine.handle(.connectionClosed(connection: id, time: shared.now))
    }

    /// Sets up both legs; nil when the connection ended during set-up (refused, a handshake or connect failure).
    private func connect(
        _ socket: Socket, id: Int, flow: inout ConnectionFlow, capture: ConnectionCapture?
    ) -> (client: any ByteStream, upstream: any ByteStream)? {
        if let end = flow.immediateEnd {
            end == .reset ? capture?.proxyReset(.client) : capture?.proxyFinished(.client)
            shared.transcript.append(flow.takeEvents())
            end == .reset ? socket.abort() : socket.close()
            flow.finished(at: shared.now)
            shared.transcript.append(flow.takeEvents())
            record(id, .closed(side: .proxy, kind: end == .reset ? .rst : .fin))
            return nil
        }
        let client: any ByteStream
        if let context = settings.clientTLS {
            do {
                let stream = try TLSStream.accept(socket: socket, context: context)
                record(id, .tlsEstablished(leg: .client, Self.session(stream.session)))
                client = stream
            } catch {
                record(id, .tlsFailed(leg: .client, reason: "\(error)"))
                capture?.proxyReset(.client)
                socket.abort()
                record(id, .closed(side: .proxy, kind: .rst))
                return nil
            }
        } else {
            client = PlainStream(socket: socket)
        }
        do {
            return (client, try connectUpstream(id, capture: capture))
        } catch {
            refuseUpstream(client, id: id, error: error, capture: capture)
            return nil
        }
    }

    private func connectUpstream(_ id: Int, capture: ConnectionCapture?) throws -> any ByteStream {
        let target = settings.upstream
        let socket = try TCPConnector.connect(to: SocketAddress(host: target.host, port: target.port))
        socket.setNoDelay()
        capture?.upstreamConnected(socket)
        guard target.tls, let context = settings.upstreamTLS else { return PlainStream(socket: socket) }
        do {
            let stream = try TLSStream(socket: socket, context: context, serverName: target.host)
            try stream.handshake(timeout: .seconds(10))
            record(id, .tlsEstablished(leg: .upstream, Self.session(stream.session)))
            return stream
        } catch {
            capture?.proxyReset(.upstream)
            socket.abort()
            record(id, .tlsFailed(leg: .upstream, reason: "\(error)"))
            throw error
        }
    }

    /// The upstream could not be reached: an http-mode client gets a 502 naming the problem, a tcp one an RST.
    ///
    /// As a gateway does, the proxy reads the request head first (at most 64 KiB, for at most two seconds): the
    /// answer to a HEAD has no body (RFC 9110 §9.3.2), and a body a client did not ask for would be read as the next
    /// response. The exchange goes into the transcript; what the client still sends is drained before the close.
    private func refuseUpstream(_ client: any ByteStream, id: Int, error: any Error, capture: ConnectionCapture?) {
        guard settings.mode == .http else {
            capture?.proxyReset(.client)
            client.abort()
            record(id, .closed(side: .upstream, kind: .rst))
            return
        }
        let deadline = ContinuousClock.now + .seconds(2)
        let request = Self.readRequestHead(client, deadline: deadline, capture: capture)
        if let request { record(id, .requestHead(exchange: 1, request)) }
        let text = Array("squall proxy: upstream \(settings.upstream) unreachable: \(error)\n".utf8)
        let fields: HTTPFields = [
            "Content-Type": "text/plain; charset=utf-8", "Content-Length": "\(text.count)", "Connection": "close",
        ]
        let head = ResponseHead(status: 502, reason: "Bad Gateway", fields: fields)
        record(id, .finalResponse(exchange: 1, head))
        var bytes = (try? HTTP1Serializer.serialize(head)) ?? []
        if request?.method != .head { bytes += text }
        if (try? client.writeAll(bytes, deadline: deadline)) != nil {
            bytes.withUnsafeBytes { capture?.sent($0, to: .client) }
        }
        if case .done? = try? client.shutdownWrite() { capture?.proxyFinished(.client) }
        Self.drain(client, deadline: deadline, capture: capture)
        client.close()
        record(id, .closed(side: .upstream, kind: .rst))
    }

    /// The request head the client sends first; nil when it sends none in time or not a valid one.
    private static func readRequestHead(
        _ client: any ByteStream, deadline: ContinuousClock.Instant, capture: ConnectionCapture?
    ) -> RequestHead? {
        var parser = HTTP1Parser(role: .server)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        var total = 0
        while total < 64 * 1024 {
            guard let count = try? client.readSome(into: chunk, deadline: deadline) else { return nil }
            guard count > 0 else {
                capture?.peerFinished(.client)
                return nil
            }
            capture?.received(UnsafeRawBufferPointer(rebasing: chunk[..<count]), from: .client)
            guard let events = try? parser.feed(Array(UnsafeRawBufferPointer(rebasing: chunk[..<count])))
            else { return nil }
            total += count
            for case .requestHead(let head) in events { return head }
        }
        return nil
    }

    /// Reads and drops what the client still sends (a request body), so that unread bytes do not turn the close
    /// into an RST that could overtake the answer; at most 1 MiB, until `deadline`.
    private static func drain(
        _ client: any ByteStream, deadline: ContinuousClock.Instant, capture: ConnectionCapture?
    ) {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        var drained = 0
        while drained < 1 << 20 {
            guard let count = try? client.readSome(into: chunk, deadline: deadline) else { return }
            guard count > 0 else { return capture?.peerFinished(.client) ?? () }
            capture?.received(UnsafeRawBufferPointer(rebasing: chunk[..<count]), from: .client)
            drained += count
        }
    }

    private func record(_ id: Int, _ kind: TranscriptEvent.Kind) {
        shared.transcript.append(TranscriptEvent(time: shared.now, connection: id, kind: kind))
    }

    private static func session(_ info: TLSSessionInfo?) -> TLSSession {
        TLSSession(
            serverName: info?.serverName, alpn: info?.alpn, version: info?.protocolVersion ?? "unknown",
            cipher: info?.cipher ?? "unknown")
    }
}

/// Lets the accept handler reach its listener, which exists only after the loop that calls the handler.
/// Weak, so that a dropped listener is not kept alive by its own accept loop.
private final class HandlerBox: Sendable {
    private struct Weak {
        weak var listener: ProxyListener?
    }

    private let value = Mutex(Weak())

    var listener: ProxyListener? { value.withLock { $0.listener } }

    func set(_ listener: ProxyListener) {
        value.withLock { $0.listener = listener }
    }
}
