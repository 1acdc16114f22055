import SquallNet
import Synchronization
import TLSKit

/// A TLS-terminating relay: accepts TLS on loopback with a leaf the local CA mints for the SNI host the
/// client asks for, connects to a plain upstream, and relays bytes both ways (one thread per connection).
///
/// ```
/// client ──TLS──▶ TerminatingRelay ──plain──▶ upstream
/// ```
/// The chaos proxy grows from this shape; the smoke check uses it as it is.
final class TerminatingRelay: Sendable {
    /// One relayed connection: what the TLS handshake agreed and how the relay ended.
    struct Connection: Sendable {
        var session: TLSSessionInfo?
        var report: RelayReport?
        var failure: String?
    }

    private final class Ledger: Sendable {
        let connections = Mutex<[Connection]>([])
    }

    private let loop: AcceptLoop
    private let ledger: Ledger

    var address: SocketAddress { loop.address }

    /// Every finished connection, in the order they ended.
    var connections: [Connection] { ledger.connections.withLock { $0 } }

    init(authority: CertificateAuthority, upstream: SocketAddress, keyLog: KeyLog?) throws {
        var configuration = TLSServerConfiguration { serverName in
            try authority.leaf(for: serverName ?? "127.0.0.1")
        }
        configuration.keyLog = keyLog
        let context = try TLSContext(server: configuration)
        let ledger = Ledger()
        self.ledger = ledger
        self.loop = try AcceptLoop(
            address: SocketAddress(parsing: "127.0.0.1:0"),
            configuration: AcceptLoopConfiguration(name: "smoke-relay")
        ) { socket in
            ledger.connections.withLock { $0.append(TerminatingRelay.relay(socket, context: context, to: upstream)) }
        }
    }

    func stop() {
        loop.stop()
        _ = loop.waitUntilIdle(timeout: .seconds(5))
    }

    private static func relay(_ socket: Socket, context: TLSContext, to upstream: SocketAddress) -> Connection {
        var connection = Connection()
        do {
            let downstream = try TLSStream.accept(socket: socket, context: context)
            connection.session = downstream.session
            let upstreamSocket = try TCPConnector.connect(to: upstream)
            connection.report = Relay().run(downstream: downstream, upstream: PlainStream(socket: upstreamSocket))
        } catch {
            socket.abort()
            connection.failure = "\(error)"
        }
        return connection
    }
}
