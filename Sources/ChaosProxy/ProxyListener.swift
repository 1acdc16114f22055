import Capture
import FaultEngine
import HTTPExchange
import ProxyFlow
import SquallNet
import Synchronization
import TLSKit

/// What all of a proxy's listeners share: the connection registry, the transcript, the counters and the clock
/// origin (transcript times are measured from it).
struct ProxyShared: Sendable {
    let registry = ConnectionRegistry()
    let transcript: TranscriptStore
    let counters = ProxyCounters()
    let origin: ContinuousClock.Instant
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
    /// The upstream TLS context offering `h2` before `http/1.1` (an HTTP/2 client's connection, `HTTP2Upstream`).
    var upstreamTLSOfferingHTTP2: TLSContext?
    /// Whether an HTTP/2 client's connection goes upstream as HTTP/2 (`ChaosProxyConfiguration.upstreamHTTP2`).
    var upstreamHTTP2 = UpstreamHTTP2.off
    var seed: UInt64
    /// The head and idle timeouts and the connection limit (`ChaosProxyConfiguration.limits`).
    var limits: ListenerLimits
    /// tcp mode: connect the upstream at the accept rather than on the first byte (`ConnectionLimits`).
    var upstreamAtAccept = false
    /// The interop versions the upstream serves resumably (`ChaosProxyConfiguration.upstreamInterop`).
    var upstreamInterop: Set<Int>?
    /// Whether clients may speak HTTP/2 (`ChaosProxyConfiguration.http2`): ALPN `h2` over TLS, prior knowledge
    /// over cleartext; each stream is then proxied as an exchange of its own (`HTTP2Front`).
    var http2 = false

    /// The flow of connection `id` (or of an HTTP/2 stream proxied as one).
    func flow(id: Int, scheme: String? = nil) -> ConnectionFlow {
        var flow = ConnectionFlow(id: id, mode: mode, seed: seed ^ (UInt64(id) &* 0x9e37_79b9_7f4a_7c15))
        flow.forwardedProto = mode == .http ? (scheme ?? (clientTLS == nil ? "http" : "https")) : nil
        flow.upstreamName = "\(upstream)"
        flow.upstreamOrigins = upstream.origins
        flow.upstreamInterop = upstreamInterop
        flow.limits = ConnectionLimits(
            headTimeout: limits.headTimeout, idleTimeout: limits.idleTimeout, upstreamAtAccept: upstreamAtAccept)
        return flow
    }
}

/// One listening socket of the proxy and the connections it accepts, each on its own thread: accept, judge
/// the connection rules (`refuse` answers with an RST before any byte), the client TLS handshake, the upstream
/// connection (and its TLS) once the client's bytes make a request, then a `ProxyConnection` until the end. A
/// connection over `limits.maximumConnections` is shed: in http mode a 503 after its TLS handshake, in tcp mode
/// closed at once (as are those beyond 32 being answered); it never reaches the transcript (`shedConnections`
/// counts it).
final class ProxyListener: Sendable {
    let settings: ListenerSettings
    let engine: EngineBox
    private let shared: ProxyShared
    private let loop: AcceptLoop
    private let accepted = Atomic<Int>(0)

    var address: SocketAddress { loop.address }
    /// Connections over the limit shed since the start.
    var shedConnections: Int { loop.shedConnections }

    init(address: SocketAddress, settings: ListenerSettings, engine: EngineBox, shared: ProxyShared) throws {
        self.settings = settings
        self.engine = engine
        self.shared = shared
        let box = HandlerBox()
        self.loop = try AcceptLoop(
            address: address,
            configuration: AcceptLoopConfiguration(
                maximumConnections: settings.limits.maximumConnections, name: "proxy-\(settings.name)",
                shed: { socket in Self.shed(socket, settings: settings) })
        ) { socket in box.listener?.serve(socket) }
        box.set(self)
    }

    /// Answers a connection over the limit: in http mode a 503 (after the client's TLS handshake, within the head
    /// timeout and at most 2 s), in tcp mode nothing; then closes it.
    private static func shed(_ socket: Socket, settings: ListenerSettings) {
        defer { socket.close() }
        guard settings.mode == .http, (try? socket.setNonBlocking(true)) != nil else { return }
        let handshake = min(settings.limits.headTimeout, .seconds(2))
        let stream: any ByteStream
        if let context = settings.clientTLS {
            guard let secure = try? TLSStream.accept(socket: socket, context: context, timeout: handshake) else {
                return
            }
            stream = secure
        } else {
            stream = PlainStream(socket: socket)
        }
        HTTPServerStream.shed(
            stream,
            message: "squall proxy: \(settings.limits.maximumConnections) connections are open, the most it accepts"
                + " at once; try again later (--max-connections raises the limit)")
    }

    /// Stops accepting, stops the connections and waits (bounded) for their threads.
    func stop() {
        loop.stop()
        shared.counters.shedByStoppedListeners.add(Int64(loop.shedConnections), ordering: .relaxed)
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
        ProxyConnection(
            socket: socket, handle: handle, flow: settings.flow(id: id), settings: settings, engine: engine,
            shared: shared
        )
        .run(nth: nth, listener: address.description)
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
