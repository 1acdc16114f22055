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
        if let streamClient {
            client = streamClient
            return feed(.legReady(.client, tls: nil))
        }
        guard let socket else { return feed(.tlsFailed(.client, reason: "no client leg")) }
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
        switch sharedUpstream?.leg(for: handle) ?? .dial {
        case .stream(let pair, let tls):
            upstream = pair
            feed(.legReady(.upstream, tls: tls.map(Self.session)))
        case .own(let dialed):
            use(dialed)
        case .dial:
            switch settings.dialUpstream(offeringHTTP2: false) {
            case .dialed(let dialed): use(dialed)
            case .failed(let input): feed(input)
            }
        case .failed(let input):
            feed(input)
        }
    }

    private func use(_ dialed: UpstreamDial) {
        capture?.upstreamConnected(dialed.socket)
        upstream = dialed.stream
        feed(.legReady(.upstream, tls: dialed.tls.map(Self.session)))
    }

    private static func session(_ info: TLSSessionInfo?) -> TLSSession {
        TLSSession(
            serverName: info?.serverName, alpn: info?.alpn, version: info?.protocolVersion ?? "unknown",
            cipher: info?.cipher ?? "unknown")
    }
}
