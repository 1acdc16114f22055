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

/// The two sides a connection flow talks to.
public enum FlowSide: String, Sendable, Hashable {
    /// The client (the proxy's accepted socket).
    case client
    /// The upstream server (the proxy's own connection).
    case upstream
}
