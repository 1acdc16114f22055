import Foundation
import HTTPExchange
import SquallNet
import Synchronization
import TLSKit

/// Which HTTP a transfer speaks (`client.http` in a scenario, `squall upload --http`).
public enum HTTPChoice: String, Sendable, Hashable, CaseIterable {
    /// HTTP/1.1 only: ALPN offers `http/1.1`, one request at a time per connection.
    case http1 = "http/1.1"
    /// HTTP/2 only: ALPN offers `h2` alone (a server that does not choose it fails the connection), cleartext
    /// with prior knowledge.
    case http2 = "h2"
    /// As URLSession does: over TLS, HTTP/2 when the server chooses `h2` in ALPN, else HTTP/1.1; cleartext is
    /// HTTP/1.1.
    case automatic = "auto"
}

/// The HTTP/2 connections that the transfers of one upload system share: one per endpoint at a time, each carrying
/// the uploads going on at once as streams side by side (up to the server's `SETTINGS_MAX_CONCURRENT_STREAMS`), as
/// URLSession multiplexes background uploads on one connection.
///
/// A connection that stops taking streams (a `GOAWAY`, a stream that timed out, the server gone) is replaced by a
/// new one for the next request; its streams still open finish on it. Connections close by themselves after
/// `idleTimeout` without a stream, and all at once with `close()`.
public final class HTTP2Connections: Sendable {
    /// How long a connection without a stream stays open.
    public let idleTimeout: Duration
    private let state = Mutex(State())
    /// One connection opens at a time, so that transfers starting together share it.
    private let opening = NSLock()

    private struct State {
        var connections: [HTTPEndpoint: HTTP2ClientConnection] = [:]
        /// Connections replaced by a newer one, still finishing their streams: `close()` ends them too.
        var replaced: [HTTP2ClientConnection] = []
        var contexts: [String: TLSContext] = [:]
        var closed = false
    }

    public init(idleTimeout: Duration = .seconds(30)) {
        self.idleTimeout = idleTimeout
    }

    /// A connection for a request to `endpoint` as `choice` says: a stream of the shared HTTP/2 connection (opened
    /// when there is none that takes streams), or, when the server did not choose `h2` and `choice` allows it (or
    /// the endpoint is cleartext with `automatic`), an HTTP/1.1 connection of the caller's own. `willConnect`
    /// receives a new socket as `HTTPClientConnection.open`'s does (it is shared once HTTP/2 is chosen: the caller
    /// must then stop shutting it down: `willShare` is called before other transfers can reach the connection).
    func connection(
        to endpoint: HTTPEndpoint, choice: HTTPChoice, trustedCAFile: String?, timeout: Duration,
        willConnect: (Socket) -> Void, willShare: () -> Void
    ) throws(TransferError) -> HTTPClientConnection {
        if choice == .http1 || (choice == .automatic && !endpoint.secure) {
            let tls = endpoint.secure ? try context(choice: .http1, trustedCAFile: trustedCAFile) : nil
            return try HTTPClientConnection.open(to: endpoint, tls: tls, timeout: timeout, willConnect: willConnect)
        }
        let tls = endpoint.secure ? try context(choice: choice, trustedCAFile: trustedCAFile) : nil
        opening.lock()
        defer { opening.unlock() }
        return try shared(
            endpoint, choice: choice, tls: tls, timeout: timeout, willConnect: willConnect, willShare: willShare)
    }

    /// The shared connection to `endpoint`, or a new one (under `opening`).
    private func shared(
        _ endpoint: HTTPEndpoint, choice: HTTPChoice, tls: TLSContext?, timeout: Duration,
        willConnect: (Socket) -> Void, willShare: () -> Void
    ) throws(TransferError) -> HTTPClientConnection {
        if let shared = state.withLock({ $0.connections[endpoint] }), shared.acceptsStreams {
            willShare()
            return HTTPClientConnection(endpoint: endpoint, http2: shared)
        }
        let (stream, protocolName) = try HTTPClientConnection.openStream(
            to: endpoint, tls: tls, timeout: timeout, willConnect: willConnect)
        guard !endpoint.secure || protocolName == "h2" else {
            if choice == .automatic { return HTTPClientConnection(endpoint: endpoint, stream: stream) }
            stream.close()
            throw TransferError(
                .secureConnectionFailed,
                "the server at \(endpoint) did not choose h2 in ALPN (it chose \(protocolName ?? "nothing")); "
                    + "set the client's HTTP to auto or http/1.1, or turn HTTP/2 on at the server")
        }
        let connection: HTTP2ClientConnection
        do {
            connection = try HTTP2ClientConnection(
                stream: stream, scheme: endpoint.secure ? "https" : "http", idleTimeout: idleTimeout)
        } catch {
            stream.close()
            throw TransferError(.networkConnectionLost, "cannot start HTTP/2 on \(endpoint): \(error)")
        }
        willShare()
        let replaced = state.withLock { state -> HTTP2ClientConnection? in
            defer { state.connections[endpoint] = connection }
            let old = state.connections[endpoint]
            state.replaced.removeAll(where: \.isOver)
            if let old { state.replaced.append(old) }
            return old
        }
        replaced?.retire()
        if state.withLock({ $0.closed }) { connection.close() }
        return HTTPClientConnection(endpoint: endpoint, http2: connection)
    }

    /// The client TLS context for `choice` and the trusted CAs, made once.
    private func context(choice: HTTPChoice, trustedCAFile: String?) throws(TransferError) -> TLSContext {
        let key = "\(choice.rawValue) \(trustedCAFile ?? "")"
        if let context = state.withLock({ $0.contexts[key] }) { return context }
        var configuration = TLSClientConfiguration(trust: trustedCAFile.map { .caFile($0) } ?? .systemDefault)
        configuration.alpn =
            switch choice {
            case .http1: ["http/1.1"]
            case .http2: ["h2"]
            case .automatic: ["h2", "http/1.1"]
            }
        do {
            let context = try TLSContext(client: configuration)
            state.withLock { $0.contexts[key] = context }
            return context
        } catch {
            throw TransferError(.secureConnectionFailed, "cannot set up TLS: \(error)")
        }
    }

    /// Closes every connection (their streams fail) and any opened later.
    public func close() {
        let all = state.withLock { state in
            state.closed = true
            defer {
                state.connections.removeAll()
                state.replaced.removeAll()
            }
            return Array(state.connections.values) + state.replaced
        }
        for connection in all { connection.close() }
    }
}
