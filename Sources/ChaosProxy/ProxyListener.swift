import Capture
import FaultEngine
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
        var flow = ConnectionFlow(
            id: id, mode: settings.mode, seed: settings.seed ^ (UInt64(id) &* 0x9e37_79b9_7f4a_7c15))
        flow.forwardedProto = settings.mode == .http ? (settings.clientTLS == nil ? "http" : "https") : nil
        flow.upstreamName = "\(settings.upstream)"
        flow.upstreamOrigins = settings.upstream.origins
        ProxyConnection(socket: socket, handle: handle, flow: flow, settings: settings, engine: engine, shared: shared)
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
