import SquallNet
import Synchronization

/// A relay in front of an upstream server, for tests: accepts on a loopback port, connects to `upstream`,
/// runs a `Relay` per connection and posts its control (when the relay starts) and its report (when it ends).
///
/// ```
/// test client ──▶ harness.address ══ Relay ══▶ upstream
///                      controls ◀── RelayControl     reports ◀── RelayReport
/// ```
public final class RelayHarness: Sendable {
    /// Where clients connect.
    public let address: SocketAddress
    /// One per connection, posted just before its relay runs.
    public let controls = Mailbox<RelayControl>()
    /// One per connection, posted when its relay has ended.
    public let reports = Mailbox<RelayReport>()
    private let loop: AcceptLoop

    /// Starts the relay listener on `host`, port 0. `wrapDownstream` turns the accepted socket into the
    /// downstream stream (default `PlainStream`).
    public init(
        host: String = "127.0.0.1", upstream: SocketAddress, configuration: RelayConfiguration = RelayConfiguration(),
        tap: (any RelayTap & Sendable)? = nil,
        wrapDownstream: @escaping @Sendable (Socket) throws -> any ByteStream = { PlainStream(socket: $0) }
    ) throws {
        let controls = self.controls
        let reports = self.reports
        self.loop = try LoopbackServer.start(host: host) { socket in
            do {
                let downstream = try wrapDownstream(socket)
                let upstream = PlainStream(socket: try TCPConnector.connect(to: upstream, timeout: .seconds(5)))
                let control = try RelayControl()
                controls.put(control)
                let relay = Relay(configuration: configuration)
                reports.put(relay.run(downstream: downstream, upstream: upstream, control: control, tap: tap))
            } catch {
                socket.abort()
            }
        }
        self.address = loop.address
    }

    /// Stops accepting and waits for the running relays to end.
    public func stop() {
        loop.stop()
        _ = loop.waitUntilIdle(timeout: LoopbackServer.patience)
    }
}

/// A `RelayTap` that counts the bytes it sees per direction.
public final class CountingTap: RelayTap, Sendable {
    private let counts = Mutex<[RelayDirection: Int64]>([:])

    public init() {}

    public func relay(_ direction: RelayDirection, received chunk: UnsafeRawBufferPointer) {
        counts.withLock { $0[direction, default: 0] += Int64(chunk.count) }
    }

    /// The bytes seen going `direction`.
    public func bytes(_ direction: RelayDirection) -> Int64 {
        counts.withLock { $0[direction, default: 0] }
    }
}
