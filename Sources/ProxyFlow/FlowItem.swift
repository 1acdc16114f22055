import ProxyTranscript

/// What a lane hands its driver to carry out on the destination side, in order.
public enum FlowItem: Sendable, Equatable {
    /// Bytes to write (what is left of them after partial writes).
    case bytes(ArraySlice<UInt8>)
    /// The source ended its stream: shut the destination's write side (a FIN, after a TLS close_notify).
    case endStream
    /// End the whole connection with FINs on both sides (a fault, or the proxy's own answer with `close`).
    case close
    /// End the whole connection with RSTs on both sides (SO_LINGER 0).
    case reset
}

/// The two sides a connection flow talks to: the client (the proxy's accepted socket) and the upstream server
/// (the proxy's own connection). One type with the transcript's TLS legs, so that a side needs no conversion.
public typealias FlowSide = TLSLeg
