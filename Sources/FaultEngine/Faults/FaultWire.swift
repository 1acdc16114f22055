import HTTP2Wire
import SquallCore

/// What a fault action does on the wire, in the primitives the proxy's connection flow carries out (each once, in
/// `ConnectionFlow+Faults`). A family says which primitive each of its actions is (`FaultFamily.wire`); an action
/// that maps onto these needs nothing in the flow.
public enum FaultWire: Sendable, Hashable {
    /// End the connection, with RSTs (`reset`) or FINs: decided outside the byte stream, at once (a reset first
    /// writes the interim heads queued for the client); inside it, after the bytes its lane queued before it.
    case cut(reset: Bool)
    /// Reset the exchange's HTTP/2 stream with `code` (`RST_STREAM`), where `cut(reset: true)` would end an
    /// HTTP/1.1 connection: the flow cuts its client side as a reset does, and the stream's front sends the code.
    case resetStream(code: UInt32)
    /// Tell the HTTP/2 front of the exchange's stream to do something only it can (its windows, its connection);
    /// nothing else happens in the flow.
    case http2(HTTP2Signal)
    /// Close the client's side after the bytes queued for it, inside the byte stream (the response body so far;
    /// on a head, the head goes no further). Nothing happens outside the byte stream.
    case closeClient
    /// Close the client's side instead of forwarding the final head it fires on; nothing elsewhere.
    case dropFinalHead
    /// Answer the request for the server (when one waits for its final response and none was forwarded; else the
    /// connection just closes).
    case answer(FaultResponse)
    /// Shape the lanes of the rule's direction from now on (only the client's with `clientOnly`).
    case shape(LaneShape, clientOnly: Bool)
    /// Drop the interim head it fires on.
    case stripInterim
    /// Set field `name` to `value` (nil removes it) on the head it fires on.
    case rewrite(name: String, value: String?)
}

/// What an HTTP/2 fault asks of the front of the stream it fired on (`HTTP2Front`).
public enum HTTP2Signal: Sendable, Hashable {
    /// Reopen no window of the stream (or, with `connection`, of any stream) for `duration` (nil: never).
    case windowStall(Duration?, connection: Bool)
    /// Send `GOAWAY` with `code` and the last stream `lastStream` names; end the connection at once unless
    /// `graceful`.
    case goaway(code: UInt32, lastStream: GoawayLastStream, graceful: Bool)
    /// Send the client these `SETTINGS`.
    case settings([HTTP2Setting])
    /// Acknowledge none of the client's `PING`s for `duration` (nil: never); those held are acknowledged after it.
    case pingTimeout(Duration?)
}

/// Which stream a `goaway` names as the last one processed.
public enum GoawayLastStream: Sendable, Hashable {
    /// The stream the fault fired on: it finishes, later ones are refused.
    case this
    /// The stream before it on the connection: it is refused too.
    case before
    /// This stream id.
    case id(Int32)
}

/// How a shaping action changes a lane while it lasts.
public enum LaneShape: Sendable, Hashable {
    /// Each chunk waits `delay` plus a uniform draw in −jitter…+jitter (never below zero).
    case latency(Duration, jitter: Duration)
    /// Bytes leave at most `bytesPerSecond`.
    case bandwidth(bytesPerSecond: Int64)
    /// Chunks are cut into pieces of size ± variation with `delay` between them.
    case slice(size: Int64, variation: Int64, delay: Duration)
    /// Nothing leaves for `duration` (nil: for good); with `thenClose`, bytes are dropped and the connection closes
    /// after it.
    case stall(Duration?, thenClose: Bool)
    /// `bytes` more bytes go, then the connection closes.
    case limit(bytes: Int64)
    /// The end of stream waits `delay`.
    case slowClose(Duration)
}
