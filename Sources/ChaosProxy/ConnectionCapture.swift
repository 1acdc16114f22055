import Capture
import PacketSynthesis
import ProxyFlow
import SquallNet

/// The decrypted capture of one proxied connection: its two legs as two synthesized TCP connections in the
/// proxy's pcap, each packet written when the proxy really read or wrote those bytes. On the client leg the
/// client is the TCP client and the proxy the server; on the upstream leg the proxy is the client. A FIN or RST
/// is written where it happened: a fault's reset mid-PATCH is an RST right after the last forwarded byte.
///
/// Used by the connection's own thread only.
final class ConnectionCapture {
    private let clientLeg: CapturedConnection?
    private var upstreamLeg: CapturedConnection?
    private let capture: DecryptedCapture

    /// Starts the client leg of an accepted socket (its handshake is written now). When its addresses have no IPv4
    /// form (an HTTP/2 stream's socket pair, whose client leg its connection's front captures), only the upstream leg
    /// is captured.
    init(capture: DecryptedCapture, accepted socket: Socket) {
        self.capture = capture
        if let client = try? IPv4Endpoint(parsing: socket.peerAddress().description),
            let listener = try? IPv4Endpoint(parsing: socket.localAddress().description)
        {
            clientLeg = capture.connection(client: client, server: listener)
        } else {
            clientLeg = nil
        }
    }

    /// A capture of an upstream leg only (an HTTP/2 upstream session its streams share, `HTTP2Back`), started by
    /// `upstreamConnected`.
    init(capture: DecryptedCapture) {
        self.capture = capture
        clientLeg = nil
    }

    /// Starts the upstream leg once the proxy's connection to the server is up.
    func upstreamConnected(_ socket: Socket) {
        guard let local = try? IPv4Endpoint(parsing: socket.localAddress().description),
            let server = try? IPv4Endpoint(parsing: socket.peerAddress().description)
        else { return }
        upstreamLeg = capture.connection(client: local, server: server)
    }

    /// Bytes the proxy read from `side`'s peer.
    func received(_ bytes: UnsafeRawBufferPointer, from side: FlowSide) {
        leg(side)?.data(bytes, from: Self.peer(side))
    }

    /// Bytes the proxy read from `side`'s peer, as the slice the flow gets (a flight recorder keeps it uncopied).
    func received(_ bytes: ArraySlice<UInt8>, from side: FlowSide) {
        leg(side)?.data(bytes, from: Self.peer(side))
    }

    /// Bytes the proxy wrote to `side`'s peer.
    func sent(_ bytes: ArraySlice<UInt8>, to side: FlowSide) {
        leg(side)?.data(bytes, from: Self.peer(side).peer)
    }

    /// A FIN or RST where it happened (a flow's `ConnectionAction.capture`).
    func mark(_ mark: CaptureMark) {
        let from = mark.sender == .peer ? Self.peer(mark.side) : Self.peer(mark.side).peer
        if mark.kind == .fin { leg(mark.side)?.finish(from: from) } else { leg(mark.side)?.reset(from: from) }
    }

    /// Which end of `side`'s leg the peer is: the TCP client on the client leg, the TCP server upstream (the
    /// proxy is the other end of both).
    private static func peer(_ side: FlowSide) -> CapturedConnection.Direction {
        side == .client ? .client : .server
    }

    private func leg(_ side: FlowSide) -> CapturedConnection? {
        side == .client ? clientLeg : upstreamLeg
    }
}
