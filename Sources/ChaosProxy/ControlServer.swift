import ControlAPI
import HTTPExchange
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
/// for the idle timeout; the first request head must be whole within the head timeout of the accept (else 408), and
/// a connection over the limit gets 503 (`ListenerLimits`, default `ControlServer.defaultLimits`). A body over `handler.configuration.maxBodyBytes` gets 413 and the
/// connection closes without the body being read on (a declared `Content-Length` is refused before any of it is
/// read); malformed HTTP gets 400 and the connection closes. Ready when `init` returns.
public final class ControlServer: Sendable {
    /// The bound address, with the real port when port 0 was asked for.
    public var address: SocketAddress { loop.address }

    private let loop: AcceptLoop
    private let connections: OpenConnections

    /// Why the API may not listen on `address`, or nil: off loopback, anyone on that network could steer the proxy,
    /// so an address other than 127.0.0.0/8 or ::1 needs a token (`--api-token`).
    public static func refusal(of address: SocketAddress, tokenRequired: Bool) -> ControlServerError? {
        guard !address.isLoopback, !tokenRequired else { return nil }
        return ControlServerError(
            .notLoopback,
            "the control API listens on loopback only (127.0.0.1 or ::1) unless it has a token, not \(address)")
    }

    /// The control API's limits unless told otherwise: a first head within 10 s of the accept, 60 s idle between
    /// requests, 64 connections at once. Its clients are tools and tests on the same machine (`squall fault`,
    /// Toxiproxy client libraries, the dashboard), which keep a few connections; 64 leaves room for parallel test
    /// runs and bounds what a runaway client can hold.
    public static let defaultLimits = ListenerLimits(
        headTimeout: .seconds(10), idleTimeout: .seconds(60), maximumConnections: 64)

    /// Binds `address` (loopback, or any address when the API has a token; port 0 picks a free port) and starts
    /// serving `handler` within `limits`.
    public init(address: SocketAddress, handler: ControlAPIHandler, limits: ListenerLimits = defaultLimits) throws {
        if let refusal = Self.refusal(of: address, tokenRequired: handler.configuration.token != nil) {
            throw refusal
        }
        let connections = OpenConnections()
        self.connections = connections
        let message =
            "squall proxy: the control API has \(limits.maximumConnections) connections open, the most it serves at"
            + " once; try again later (--api-max-connections raises the limit)"
        let configuration = AcceptLoopConfiguration(
            maximumConnections: limits.maximumConnections, name: "squall-api",
            shed: { socket in
                defer { socket.close() }
                guard (try? socket.setNonBlocking(true)) != nil else { return }
                HTTPServerStream.shed(PlainStream(socket: socket), message: message)
            })
        loop = try AcceptLoop(address: address, configuration: configuration) { socket in
            let deadline = ContinuousClock.now + limits.headTimeout
            connections.serve(socket) { stream in
                let connection = ControlConnection(
                    stream: stream, handler: handler, limits: limits, stopping: { connections.isStopped })
                connection.run(firstHeadDeadline: deadline)
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

    /// Whether `shutDownAll` has run.
    var isStopped: Bool { sockets.withLock { $0 == nil } }

    func shutDownAll() {
        for socket in sockets.withLock({ Array(($0.take() ?? [:]).values) }) {
            socket.shutdown(reading: true, writing: true)
        }
    }
}
