import FaultEngine
import ProxyTranscript

/// What happens to one proxied connection, as its driver tells `ConnectionFlow.handle`: set-up steps, bytes and
/// ends of either side, time passing, messages from other threads, and what the driver carried out.
public enum ConnectionInput: Sendable {
    /// The client connection was accepted, the `nth` of its listener.
    case opened(client: String, listener: String, nth: Int)
    /// A leg is ready: with its TLS session, nil for plain TCP.
    case legReady(FlowSide, tls: TLSSession?)
    /// A leg's TLS handshake failed (the driver aborted that socket).
    case tlsFailed(FlowSide, reason: String)
    /// The upstream could not be connected.
    case upstreamUnreachable(reason: String)
    /// Bytes read from a side.
    case received(ArraySlice<UInt8>, from: FlowSide)
    /// A side ended its stream (FIN or close_notify).
    case ended(FlowSide)
    /// A side failed: an RST, or with `abruptEOF` a TLS peer gone without close_notify (a FIN on the wire).
    case failed(FlowSide, abruptEOF: Bool)
    /// A write to a side failed.
    case writeFailed(FlowSide)
    /// The driver wrote the lanes' due items.
    case wrote
    /// The driver shut down a side's write side (a lane's `endStream`).
    case shutDown(FlowSide)
    /// The driver reached a lane's `close` or `reset` item.
    case reachedCut(FlowItem)
    /// Waiting failed (poll).
    case waitFailed
    /// A deadline (`ConnectionFlow.deadline`: a head or idle timeout; or the connection's next delayed trigger) has
    /// come.
    case tick
    /// A message from another thread (the control API, a rule change, the listener stopping).
    case message(ConnectionMessage)
    /// The proxy's last FIN or RST of the connection went out.
    case endSent
    /// The lingering drain is over (both peers ended, or its time or size ran out).
    case drained
    /// The connection left the live list: the flow records its close.
    case released
}

/// What other threads send a live connection: a fault to fire on it, a rule change (its faults re-arm, the effects
/// of removed rules end), the order to stop, or to reset it at once, as no fault (the client it carried for is gone:
/// no RST waits for its acknowledgement, no byte still held goes on).
public enum ConnectionMessage: Sendable {
    case fire(FaultDecision)
    case rulesChanged(FaultRuleChange)
    case stop
    case reset
}

/// What `ConnectionFlow.handle` asks its driver to do, in order. Writing the lanes' items is not listed: the driver
/// writes what `Lane.next(at:)` hands it while relaying.
public enum ConnectionAction: Sendable, Hashable {
    /// Complete the client leg (its TLS handshake when the listener has TLS) by `deadline` (the head deadline; nil for
    /// none); answer `legReady` or `tlsFailed` (a handshake past the deadline is one).
    case acceptClient(deadline: Duration?)
    /// Connect the upstream (and its TLS), once the client's bytes make a request; answer `legReady`, `tlsFailed` or
    /// `upstreamUnreachable`.
    case connectUpstream
    /// Run the poll loop over the legs there are, feeding reads, ends, writes, ticks and messages, until the flow
    /// asks for something else.
    case relay
    /// Write a FIN or RST into the decrypted capture.
    case capture(CaptureMark)
    /// RST both legs (after waiting, at most a second, until the peers acknowledged what was written); answer
    /// `endSent`.
    case abort(waitForAcknowledgement: Bool)
    /// Shut down both legs' write sides (FINs); answer `endSent`.
    case finishWrites
    /// Read and drop what the peers still send (at most a second, 1 MiB a side), feeding `ended` and `failed`;
    /// answer `drained`.
    case drain
    /// Close both sockets; answer `endSent`.
    case close
    /// Take the connection off the live list; answer `released`.
    case release
}

/// A FIN or RST the decrypted capture writes on one leg, where it happened.
public struct CaptureMark: Sendable, Hashable {
    /// Who sent it: the leg's peer, or the proxy.
    public enum Sender: Sendable, Hashable {
        case peer
        case proxy
    }

    public var side: FlowSide
    public var sender: Sender
    public var kind: CloseKind

    public init(_ side: FlowSide, _ sender: Sender, _ kind: CloseKind) {
        self.side = side
        self.sender = sender
        self.kind = kind
    }
}
