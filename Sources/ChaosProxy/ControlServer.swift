import ControlAPI
import SquallNet
import Synchronization

/// Why a `ControlServer` could not start.
public struct ControlServerError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The address is not on the loopback network: the control API steers faults and must not be reachable
        /// from elsewhere.
        case notLoopback
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}

/// The control API over HTTP/1.1 on a loopback address: an `AcceptLoop`, one thread per connection, requests
/// read by `HTTPExchange.HTTPServerStream` and answered by a `ControlAPIHandler`.
///
///     AcceptLoop ──▶ thread per connection ──▶ ControlConnection: HTTPServerStream ──▶ head + body (≤ maxBodyBytes)
///                                                   ──▶ ControlAPIHandler.handle ──▶ response, keep-alive
///
/// Connections are kept alive (RFC 9112 §9.3) until the client closes, sends `Connection: close`, or stays idle
/// for `ControlConnection.idleTimeout`. A body over `handler.configuration.maxBodyBytes` gets 413 and the
/// connection closes without the body being read on (a declared `Content-Length` is refused before any of it is
/// read); malformed HTTP gets 400 and the connection closes. Ready when `init` returns.
public final class ControlServer: Sendable {
    /// The bound address, with the real port when port 0 was asked for.
    public var address: SocketAddress { loop.address }

    private let loop: AcceptLoop
    private let connections: OpenConnections

    /// Binds `address` (loopback only; port 0 picks a free port) and starts serving `handler`.
    public init(address: SocketAddress, handler: ControlAPIHandler) throws {
        guard address.isLoopback else {
            throw ControlServerError(
                .notLoopback, "the control API listens on loopback only (127.0.0.1 or ::1), not \(address)")
        }
        let connections = OpenConnections()
        self.connections = connections
        loop = try AcceptLoop(
            address: address, configuration: AcceptLoopConfiguration(maximumConnections: 64, name: "squall-api")
        ) { socket in
            connections.serve(socket) { stream in
                let connection = ControlConnection(stream: stream, handler: handler)
                connection.run()
            }
        }
    }

    deinit {
        loop.stop()
        connections.shutDownAll()
    }

    /// Closes the listener, shuts down every open connection and waits (up to 5 s) for their threads. Safe to call
    /// more than once.
    public func stop() {
        loop.stop()
        connections.shutDownAll()
        _ = loop.waitUntilIdle(timeout: .seconds(5))
    }
}

/// The sockets of the connections being served, so that `stop()` can shut them down; nil once stopped (a late
/// connection is closed at once).
final class OpenConnections: Sendable {
    private let sockets = Mutex<[ObjectIdentifier: Socket]?>([:])

    /// Registers `socket`, runs `body` over a non-blocking stream on it, then closes it.
    func serve(_ socket: Socket, _ body: (PlainStream) -> Void) {
        let key = ObjectIdentifier(socket)
        defer {
            sockets.withLock { $0?[key] = nil }
            socket.close()
        }
        let open = sockets.withLock { sockets in
            sockets?[key] = socket
            return sockets != nil
        }
        guard open, (try? socket.setNonBlocking(true)) != nil else { return }
        body(PlainStream(socket: socket))
    }

    func shutDownAll() {
        for socket in sockets.withLock({ Array(($0.take() ?? [:]).values) }) {
            socket.shutdown(reading: true, writing: true)
        }
    }
}
