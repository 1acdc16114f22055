/// One of the two streams a `Relay` joins.
public enum RelaySide: Sendable, Hashable, CaseIterable {
    /// The client's side (the connection the relay accepted).
    case downstream
    /// The server's side (the connection the relay opened).
    case upstream

    /// The other side.
    public var opposite: RelaySide {
        self == .downstream ? .upstream : .downstream
    }
}

/// One direction of a relay, named after where the bytes go.
public enum RelayDirection: Sendable, Hashable, CaseIterable {
    /// Read from downstream, written to upstream (client to server).
    case toUpstream
    /// Read from upstream, written to downstream (server to client).
    case toDownstream

    /// The side this direction reads from.
    public var source: RelaySide {
        self == .toUpstream ? .downstream : .upstream
    }

    /// The side this direction writes to.
    public var destination: RelaySide {
        source.opposite
    }
}

/// How one side of a relay ended.
public enum RelayEnding: Sendable, Hashable, CustomStringConvertible {
    /// The side ended its stream cleanly (FIN or close_notify) and got everything relayed to it.
    case endOfStream
    /// The side reset the connection (`ECONNRESET`, or `EPIPE` on a write after a reset).
    case reset
    /// Reading, writing or setting up the side failed; the thrown error's description.
    case failed(String)
    /// The relay reset this side (`abort()`) because the other side reset or failed.
    case aborted
    /// No byte moved for `RelayConfiguration.idleTimeout`.
    case idleTimeout
    /// `RelayConfiguration.timeLimit` passed.
    case timeLimit
    /// `RelayControl.cancel()` was called.
    case cancelled

    /// Classifies an error thrown by a stream: a reset or broken pipe is `.reset`, anything else `.failed`.
    public init(error: any Error) {
        if let error = error as? NetError, error.code == .connectionReset || error.code == .brokenPipe {
            self = .reset
        } else {
            self = .failed(String(describing: error))
        }
    }

    public var description: String {
        switch self {
        case .endOfStream: "end of stream"
        case .reset: "reset"
        case .failed(let detail): "failed (\(detail))"
        case .aborted: "aborted"
        case .idleTimeout: "idle timeout"
        case .timeLimit: "time limit"
        case .cancelled: "cancelled"
        }
    }
}

/// What one direction of a relay moved.
public struct RelayDirectionReport: Sendable, Hashable {
    /// Bytes read from the source side.
    public var bytesReceived: Int64 = 0
    /// Bytes written to the destination side (less than received when the relay ended early).
    public var bytesDelivered: Int64 = 0
    /// The most bytes this direction's buffer ever held; never above `RelayConfiguration.bufferSize`.
    public var bufferHighWater: Int = 0

    public init() {}
}

/// What a finished `Relay.run` did: bytes and buffer use per direction, how each side ended, how long it ran.
public struct RelayReport: Sendable, Hashable, CustomStringConvertible {
    public var toUpstream: RelayDirectionReport
    public var toDownstream: RelayDirectionReport
    public var downstream: RelayEnding
    public var upstream: RelayEnding
    /// From the start of `run` to the end, on the `ContinuousClock`.
    public var duration: Duration

    public init(
        toUpstream: RelayDirectionReport = RelayDirectionReport(),
        toDownstream: RelayDirectionReport = RelayDirectionReport(),
        downstream: RelayEnding = .endOfStream, upstream: RelayEnding = .endOfStream, duration: Duration = .zero
    ) {
        self.toUpstream = toUpstream
        self.toDownstream = toDownstream
        self.downstream = downstream
        self.upstream = upstream
        self.duration = duration
    }

    /// Whether both sides ended their streams cleanly and got everything relayed to them.
    public var isClean: Bool {
        downstream == .endOfStream && upstream == .endOfStream
    }

    /// The report of one direction.
    public subscript(direction: RelayDirection) -> RelayDirectionReport {
        direction == .toUpstream ? toUpstream : toDownstream
    }

    /// How one side ended.
    public subscript(side: RelaySide) -> RelayEnding {
        side == .downstream ? downstream : upstream
    }

    public var description: String {
        "relay downstream=\(downstream) upstream=\(upstream) toUpstream=\(toUpstream.bytesDelivered)"
            + " toDownstream=\(toDownstream.bytesDelivered) duration=\(duration)"
    }
}
