import SquallNet
import TLSKit

/// The TLS pieces of the TLS benchmarks: a relay that terminates TLS in front of a plain upstream, and a
/// source that pushes N bytes over TLS. The sink stays `PlainEndpoints.sink`.
///
/// ```
/// source-tls ──TLS 1.3──▶ relay (CA leaf for the SNI host) ══ Relay ══▶ plain upstream (sink)
/// ```
enum TLSEndpoints {
    /// The host the relay's leaf is for when a client sends no SNI, and the name `source-tls` asks for.
    static let defaultHost = "localhost"

    /// A server context that presents `authority`'s leaf for the SNI host asked for (`localhost` without SNI).
    static func serverContext(authority: CertificateAuthority) throws -> TLSContext {
        try TLSContext(server: TLSServerConfiguration { name in try authority.leaf(for: name ?? defaultHost) })
    }

    /// A client context that trusts the CA certificates in `caFile`.
    static func clientContext(caFile: String) throws -> TLSContext {
        try TLSContext(client: TLSClientConfiguration(trust: .caFile(caFile)))
    }

    /// Connects over TLS as `serverName`, sends `count` bytes, sends close_notify and waits until the far end
    /// has closed; the time covers the handshake and every byte reaching the far end.
    static func push(
        _ count: Int64, to address: SocketAddress, context: TLSContext, serverName: String
    ) throws -> TLSPush {
        let clock = ContinuousClock()
        let started = clock.now
        let stream = try TLSStream.connect(to: address, context: context, serverName: serverName)
        try PlainEndpoints.send(count, to: stream)
        try stream.shutdownWrite(deadline: nil)
        let closedCleanly: Bool
        do {
            _ = try PlainEndpoints.drain(stream)
            closedCleanly = true
        } catch let error as TLSError where error.code == .unexpectedEOF {
            closedCleanly = false
        }
        let duration = clock.now - started
        stream.close()
        return TLSPush(
            throughput: Throughput(bytes: count, duration: duration), session: stream.session,
            closedCleanly: closedCleanly)
    }

    /// Starts a relay on `address` that completes a TLS handshake with each client, connects to `upstream` in
    /// plain and relays; `finished` gets each connection's outcome.
    static func relay(
        on address: SocketAddress, to upstream: SocketAddress, context: TLSContext, configuration: RelayConfiguration,
        finished: @escaping @Sendable (Result<TLSRelayed, BenchError>) -> Void
    ) throws -> AcceptLoop {
        try AcceptLoop(address: address, configuration: AcceptLoopConfiguration(name: "relay-tls")) { socket in
            let downstream: TLSStream
            do {
                downstream = try TLSStream.accept(socket: socket, context: context)
            } catch {
                socket.abort()
                return finished(.failure(BenchError("handshake: \(error)")))
            }
            let server: Socket
            do {
                server = try TCPConnector.connect(to: upstream)
            } catch {
                downstream.abort()
                return finished(.failure(BenchError("upstream: \(error)")))
            }
            let session = downstream.session
            let report = Relay(configuration: configuration).run(
                downstream: downstream, upstream: PlainStream(socket: server))
            finished(.success(TLSRelayed(report: report, session: session)))
        }
    }
}

/// What `TLSEndpoints.push` measured, and what its handshake agreed on.
struct TLSPush {
    let throughput: Throughput
    let session: TLSSessionInfo?
    /// The far end closed with a close_notify (false: a bare TCP FIN after the data).
    let closedCleanly: Bool

    /// `NAME bytes=… seconds=… mbps=… version=… cipher=… close=notify|fin`.
    func line(_ name: String) -> String {
        throughput.line(name) + " " + describe(session) + " close=\(closedCleanly ? "notify" : "fin")"
    }
}

/// One connection through `TLSEndpoints.relay`: its relay report and the downstream handshake.
struct TLSRelayed: CustomStringConvertible {
    let report: RelayReport
    let session: TLSSessionInfo?

    var description: String {
        "\(report) \(describe(session))"
    }
}

/// `version=… cipher=…` of a handshake.
private func describe(_ session: TLSSessionInfo?) -> String {
    "version=\(session?.protocolVersion ?? "none") cipher=\(session?.cipher ?? "none")"
}
