import HTTPExchange
import ProxyFlow
import ProxyTranscript
import SquallNet
import TLSKit

/// Setting up the legs: the client's (its TLS handshake, and whether it speaks HTTP/2) and the upstream's.
extension ProxyConnection {
    /// Completes the client leg; a TLS handshake gets until `deadline` (the head deadline, on the flow's clock), or
    /// 10 s without one.
    func acceptClient(by deadline: Duration?) {
        let timeout = deadline.map { max(.milliseconds(1), $0 - now) } ?? .seconds(10)
        guard let context = settings.clientTLS else {
            client = PlainStream(socket: socket)
            speaksHTTP2 = settings.http2 && HTTP2Preface.comes(on: socket, before: .now + timeout)
            return feed(.legReady(.client, tls: nil))
        }
        do {
            let stream = try TLSStream.accept(socket: socket, context: context, timeout: timeout)
            client = stream
            speaksHTTP2 = settings.http2 && stream.session?.alpn == "h2"
            feed(.legReady(.client, tls: Self.session(stream.session)))
        } catch {
            feed(.tlsFailed(.client, reason: "\(error)"))
        }
    }

    func connectUpstream() {
        let target = settings.upstream
        let socket: Socket
        do {
            socket = try TCPConnector.connect(to: SocketAddress(host: target.host, port: target.port))
        } catch {
            return feed(.upstreamUnreachable(reason: "\(error)"))
        }
        capture?.upstreamConnected(socket)
        guard target.tls, let context = settings.upstreamTLS else {
            upstream = PlainStream(socket: socket)
            return feed(.legReady(.upstream, tls: nil))
        }
        do {
            let stream = try TLSStream(socket: socket, context: context, serverName: target.host)
            try stream.handshake(timeout: .seconds(10))
            upstream = stream
            feed(.legReady(.upstream, tls: Self.session(stream.session)))
        } catch {
            socket.abort()
            feed(.tlsFailed(.upstream, reason: "\(error)"))
        }
    }

    private static func session(_ info: TLSSessionInfo?) -> TLSSession {
        TLSSession(
            serverName: info?.serverName, alpn: info?.alpn, version: info?.protocolVersion ?? "unknown",
            cipher: info?.cipher ?? "unknown")
    }
}
