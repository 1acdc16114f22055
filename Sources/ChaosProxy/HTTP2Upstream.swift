import Capture
import Foundation
import ProxyFlow
import SquallNet
import TLSKit

/// Whether the upstream leg of an HTTP/2 client's connection speaks HTTP/2 (`--upstream-http2`; an HTTP/1.1 client's
/// connection always goes upstream as HTTP/1.1).
public enum UpstreamHTTP2: String, Sendable, CaseIterable {
    /// Each stream goes upstream as an HTTP/1.1 exchange of its own (h2 to h1, as a CDN does).
    case off
    /// Over TLS, `h2` is offered by ALPN and used when the upstream chooses it, else HTTP/1.1; over cleartext,
    /// HTTP/1.1 (nothing tells whether the upstream speaks HTTP/2).
    case auto
    /// As `auto` over TLS; over cleartext, HTTP/2 with prior knowledge (the upstream must speak it).
    case on
}

/// The upstream of one HTTP/2 client's connection, which its streams' connections share: one HTTP/2 session
/// (`HTTP2Back`) when the upstream speaks it, each stream a `MemoryStream` pair into it; else each stream's own HTTP/1.1
/// connection. The first stream that needs it dials; a session the upstream ended or sent away (`GOAWAY`) is
/// replaced by a new one for the next stream. `@unchecked Sendable`: its state is read and written under `condition`
/// only.
final class HTTP2Upstream: @unchecked Sendable {
    /// How a stream's connection reaches the upstream.
    enum Leg {
        /// A stream of the shared session: the pair's end, and the session's TLS (nil over cleartext).
        case stream(MemoryStream, tls: TLSSessionInfo?)
        /// A connection of its own that the upstream took as HTTP/1.1 (ALPN chose it), dialed already.
        case own(UpstreamDial)
        /// The upstream speaks HTTP/1.1: dial a connection of its own.
        case dial
        /// The upstream could not be reached.
        case failed(ConnectionInput)
    }

    private struct State {
        var back: HTTP2Back?
        var tls: TLSSessionInfo?
        /// Set once the upstream chose HTTP/1.1: every stream dials its own connection.
        var speaksHTTP11 = false
        var replaced: [HTTP2Back] = []
        var closed = false
        /// Whether a stream is dialing the upstream for all (the others wait for its outcome).
        var dialing = false
        /// How many dials ended, and how the last one failed (nil: it did not): the streams that waited for it
        /// share its failure rather than each dialing again.
        var dials = 0
        var failure: ConnectionInput?
    }

    /// `State`, and the condition streams wait on while one dials.
    private let condition = NSCondition()
    private var state = State()
    private let settings: ListenerSettings
    private let capture: DecryptedCapture?

    init(settings: ListenerSettings, capture: DecryptedCapture?) {
        self.settings = settings
        self.capture = capture
    }

    /// The upstream leg of `handle`'s connection. One stream dials at a time (outside the lock), the others wait
    /// for its outcome.
    func leg(for handle: ConnectionHandle) -> Leg {
        condition.lock()
        let waitedFor = state.dials
        var waited = false
        while state.dialing {
            waited = true
            condition.wait()
        }
        if waited, state.dials > waitedFor, let failure = state.failure {
            condition.unlock()
            return .failed(failure)
        }
        if state.closed || state.speaksHTTP11 {
            condition.unlock()
            return .dial
        }
        if let back = state.back, !back.isOver, let pair = try? back.open(for: handle) {
            let tls = state.tls
            condition.unlock()
            return .stream(pair, tls: tls)
        }
        if let back = state.back { state.replaced.append(back) }
        state.back = nil
        state.dialing = true
        condition.unlock()

        let (leg, back, tls) = dial(for: handle)
        condition.lock()
        state.dialing = false
        state.dials += 1
        state.failure = nil
        switch leg {
        case .failed(let input): state.failure = input
        case .own: state.speaksHTTP11 = true
        default: break
        }
        if let back {
            if state.closed {
                state.replaced.append(back)
            } else {
                state.back = back
                state.tls = tls
            }
        }
        condition.broadcast()
        condition.unlock()
        return leg
    }

    /// Dials the upstream offering `h2`: a new shared session and the stream's pair into it when the upstream speaks
    /// HTTP/2, else the connection itself for the stream.
    private func dial(for handle: ConnectionHandle) -> (Leg, HTTP2Back?, TLSSessionInfo?) {
        let dialed: UpstreamDial
        switch settings.dialUpstream(offeringHTTP2: true) {
        case .failed(let input): return (.failed(input), nil, nil)
        case .dialed(let dial): dialed = dial
        }
        let chosen = dialed.tls.map { $0.alpn == "h2" } ?? (settings.upstreamHTTP2 == .on)
        guard chosen else { return (.own(dialed), nil, nil) }
        let legCapture = capture.map { ConnectionCapture(capture: $0) }
        legCapture?.upstreamConnected(dialed.socket)
        let back: HTTP2Back
        do {
            back = try HTTP2Back(
                upstream: dialed.stream, scheme: settings.upstream.tls ? "https" : "http", capture: legCapture)
        } catch {
            dialed.stream.abort()
            return (.failed(.upstreamUnreachable(reason: "an HTTP/2 session with the upstream: \(error)")), nil, nil)
        }
        // The back owns the connection now: a failure from here on closes the back.
        do {
            guard let pair = try back.open(for: handle) else { throw HTTP2BackGone() }
            return (.stream(pair, tls: dialed.tls), back, dialed.tls)
        } catch {
            back.close()
            return (.failed(.upstreamUnreachable(reason: "an HTTP/2 stream to the upstream: \(error)")), nil, nil)
        }
    }

    private struct HTTP2BackGone: Error {}

    /// Closes the sessions (their streams are cut) and waits for their threads; later streams dial their own.
    func close() {
        condition.lock()
        state.closed = true
        let backs = state.replaced + [state.back].compactMap { $0 }
        state.back = nil
        state.replaced = []
        condition.unlock()
        for back in backs { back.close() }
    }
}

/// An upstream connection, connected and through its TLS handshake when the upstream is https.
struct UpstreamDial {
    let stream: any ByteStream
    let socket: Socket
    /// The TLS session (nil over cleartext).
    let tls: TLSSessionInfo?

    enum Outcome {
        case dialed(UpstreamDial)
        /// The input to feed the flow: unreachable, or the TLS handshake failed.
        case failed(ConnectionInput)
    }
}

extension ListenerSettings {
    /// Connects the upstream (and does its TLS handshake), offering `h2` before `http/1.1` in ALPN when asked; a
    /// failure is the input to feed the flow.
    func dialUpstream(offeringHTTP2: Bool) -> UpstreamDial.Outcome {
        let socket: Socket
        do {
            socket = try TCPConnector.connect(to: SocketAddress(host: upstream.host, port: upstream.port))
        } catch {
            return .failed(.upstreamUnreachable(reason: "\(error)"))
        }
        guard upstream.tls, let context = offeringHTTP2 ? upstreamTLSOfferingHTTP2 : upstreamTLS else {
            return .dialed(UpstreamDial(stream: PlainStream(socket: socket), socket: socket, tls: nil))
        }
        do {
            let stream = try TLSStream(socket: socket, context: context, serverName: upstream.host)
            try stream.handshake(timeout: .seconds(10))
            return .dialed(UpstreamDial(stream: stream, socket: socket, tls: stream.session))
        } catch {
            socket.abort()
            return .failed(.tlsFailed(.upstream, reason: "\(error)"))
        }
    }
}
