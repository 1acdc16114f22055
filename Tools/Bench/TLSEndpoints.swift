import SquallNet
import TLSKit

/// The TLS pieces of the TLS benchmarks: a terminator in front of a plain upstream, and a source that pushes N
/// bytes over TLS. The sink stays `PlainEndpoints.sink`.
///
/// ```
/// source-tls ──TLS 1.3──▶ terminator (CA leaf for the SNI host) ──plain──▶ upstream (sink)
/// ```
enum TLSEndpoints {
    /// The host the terminator's leaf is for when a client sends no SNI, and the name `source-tls` asks for.
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

    /// Starts a TLS terminator on `address`: completes a TLS handshake with each client, connects to `upstream` in
    /// plain, forwards the client's bytes to their end, then the upstream's back to theirs (half-duplex: what a
    /// one-way benchmark transfer needs); `finished` gets each connection's outcome.
    static func terminator(
        on address: SocketAddress, to upstream: SocketAddress, context: TLSContext,
        finished: @escaping @Sendable (Result<TLSForwarded, BenchError>) -> Void
    ) throws -> AcceptLoop {
        try AcceptLoop(address: address, configuration: AcceptLoopConfiguration(name: "relay-tls")) { socket in
            let downstream: TLSStream
            do {
                downstream = try TLSStream.accept(socket: socket, context: context)
            } catch {
                socket.abort()
                return finished(.failure(BenchError("handshake: \(error)")))
            }
            let server: PlainStream
            do {
                server = PlainStream(socket: try TCPConnector.connect(to: upstream))
            } catch {
                downstream.abort()
                return finished(.failure(BenchError("upstream: \(error)")))
            }
            do {
                let sent = try forward(downstream, to: server)
                try server.shutdownWrite(deadline: nil)
                let returned = try forward(server, to: downstream)
                try downstream.shutdownWrite(deadline: nil)
                downstream.close()
                server.close()
                finished(.success(TLSForwarded(toUpstream: sent, toDownstream: returned, session: downstream.session)))
            } catch {
                downstream.abort()
                server.abort()
                finished(.failure(BenchError("forwarding: \(error)")))
            }
        }
    }

    /// Copies `source` to `destination` until `source` ends; returns the byte count.
    private static func forward(_ source: some ByteStream, to destination: some ByteStream) throws -> Int64 {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: PlainEndpoints.chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        var total: Int64 = 0
        while true {
            let count = try source.readSome(into: chunk)
            if count == 0 { return total }
            try destination.writeAll(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            total += Int64(count)
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

/// One connection through `TLSEndpoints.terminator`: the bytes each way and the client's handshake.
struct TLSForwarded: CustomStringConvertible {
    let toUpstream: Int64
    let toDownstream: Int64
    let session: TLSSessionInfo?

    var description: String {
        "toUpstream=\(toUpstream) toDownstream=\(toDownstream) \(describe(session))"
    }
}

/// `version=… cipher=…` of a handshake.
private func describe(_ session: TLSSessionInfo?) -> String {
    "version=\(session?.protocolVersion ?? "none") cipher=\(session?.cipher ?? "none")"
}
