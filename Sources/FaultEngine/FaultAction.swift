import HTTP2Wire

/// What a fault does when it fires (DESIGN.md "Faults"). Sizes are bytes, rates bytes per second, durations
/// `Duration`s; the proxy driver executes the action, the engine only decides when and where. Each case belongs to
/// a family (`FaultFamily`, in `Faults/`), whose file holds everything the action means: this enum is where an
/// action is registered.
///
/// Connection actions also work in opaque TCP mode: `reset`, `close`, `stall`, `latency`, `bandwidth`, `slice`,
/// `limit`, `slowClose`, `refuse`. HTTP actions need parsed messages: `respond`, `expireAuth`, `stripInterim`,
/// `dropResponse`, `delayResponse`, `rewriteHeader`, `truncateResponse`.
public enum FaultAction: Sendable, Hashable {
    /// Abort the connection with a TCP RST (SO_LINGER 0).
    case reset
    /// Close the connection with a FIN.
    case close
    /// Hold the bytes for `duration`, then release them — or, with `thenClose`, drop them and close (Toxiproxy's
    /// `timeout`). A nil duration holds forever: a blackhole.
    case stall(duration: Duration?, thenClose: Bool)
    /// Delay every chunk by `latency` plus a uniform draw in `-jitter…+jitter` (never below zero).
    case latency(Duration, jitter: Duration)
    /// Forward at most `bytesPerSecond` (> 0; a stop is `stall`).
    case bandwidth(bytesPerSecond: Int64)
    /// Cut the stream into pieces of `size ± variation` bytes with `delay` between them.
    case slice(size: Int64, variation: Int64, delay: Duration)
    /// Forward `bytes` more bytes, then close.
    case limit(bytes: Int64)
    /// Hold the peer's close (EOF) for `delay` before passing it on (Toxiproxy's `slow_close`).
    case slowClose(delay: Duration)
    /// Fail new connections, as when the network is down.
    case refuse
    /// Answer the request with a synthesized response instead of forwarding it.
    case respond(FaultResponse)
    /// Requests whose `Authorization` value was first seen before the fault armed get 401 with
    /// `WWW-Authenticate: <challenge>`; tokens first seen later pass.
    case expireAuth(challenge: String)
    /// Drop 1xx interim responses (a middlebox that loses the 104).
    case stripInterim
    /// The request was fully delivered; cut the connection instead of forwarding the final response.
    case dropResponse
    /// Hold the final response head for the duration.
    case delayResponse(Duration)
    /// Set field `name` to `value` (nil removes it) on the head going in the rule's direction.
    case rewriteHeader(name: String, value: String?)
    /// Forward the first `afterBytes` bytes of the response body, then close.
    case truncateResponse(afterBytes: Int64)
    /// Reset the HTTP/2 stream of the exchange (`RST_STREAM` with `code`, an RFC 9113 §7 error code); the
    /// connection's other streams go on. Fires only on an exchange that came over an HTTP/2 stream.
    case resetStream(code: UInt32)
    /// Stop reopening the HTTP/2 flow-control windows of the exchange's stream (or, with `connection`, of every
    /// stream of its connection): no `WINDOW_UPDATE` for `duration` (nil: never), so the client's sending stops once
    /// its windows are spent while TCP flows on. Fires only on an exchange that came over an HTTP/2 stream.
    case windowStall(duration: Duration?, connection: Bool)
    /// Say the connection goes away (`GOAWAY` with `code`): streams above `lastStream` are refused (the client
    /// retries them on a new connection); gracefully, the others finish first, else the connection ends at once.
    /// Fires only on an exchange that came over an HTTP/2 stream.
    case goaway(code: UInt32, lastStream: GoawayLastStream, graceful: Bool)
    /// Send the client new `SETTINGS` mid-connection (fewer concurrent streams, smaller windows or frames), which hold
    /// from then on. Fires only on an exchange that came over an HTTP/2 stream.
    case settings([HTTP2Setting])
    /// Leave the client's `PING`s unacknowledged for `duration` (nil: for good), the rest of the connection flowing:
    /// a client that checks its connection with pings takes it for dead. Fires only on an exchange that came over an
    /// HTTP/2 stream.
    case pingTimeout(duration: Duration?)

    /// When, relative to the exchange, the action can happen.
    public enum Timing: Sendable, Hashable {
        /// At whatever moment the trigger picks: on a head, at an offset in a body, after a delay.
        case anytime
        /// Only as a connection opens.
        case connectionOpen
        /// On the request head.
        case requestHead
        /// On each interim (1xx) response head.
        case interimResponse
        /// On the final response head.
        case finalResponse
        /// Inside the response body.
        case responseBody
    }

    /// When the action happens; everything but `anytime` accepts only the `on-match` and `window` triggers.
    public func timing(direction: FaultDirection) -> Timing {
        family.timing(self, direction: direction)
    }

    /// Whether the action acts on an HTTP/2 stream (`reset-stream`, `window-stall`, `goaway`): over HTTP/1.1 it never
    /// fires.
    public var needsHTTP2Stream: Bool { HTTP2Streams.needsHTTP2Stream(self) }

    /// Whether the action shapes a whole connection (and so can arm on a connection before any request).
    public var isConnectionAction: Bool { family.isConnectionAction(self) }

    /// Whether the action interrupts the request it fires in (the client must resume it): fired at an upload offset
    /// on a creation, it waits for the client to have the upload's announcement (`Announcement`). The shaping
    /// effects (`latency`, `bandwidth`, `slice`, `slow-close`) only slow the request down.
    public var interruptsUpload: Bool { Self.interruptingNames.contains(name) }

    /// The names of the actions that interrupt an upload (`interruptsUpload`): what a transcript's fired fault
    /// names when it cut a request.
    public static let interruptingNames: Set<String> = FaultFamilies.all.reduce(into: []) {
        $0.formUnion($1.interrupting)
    }

    /// Whether `direction` means something for the action (it picks the stream to shape or the head to rewrite).
    public var takesDirection: Bool { family.takesDirection(self) }

    /// The direction a rule of the action gets when none is written.
    public var defaultDirection: FaultDirection { family.defaultDirection(self) }

    /// The action's name in scenario files.
    public var name: String { family.name(self) }

    /// What the action does on the wire (`FaultWire`).
    public var wire: FaultWire { family.wire(self) }

    /// For an action placed in the response body (`truncate-response`): after how many of its bytes it fires.
    public var responseBodyBytes: Int64? { family.responseBodyBytes(self) }

    /// Whether the client may never see the final response, given its read timeout (a dropped or truncated
    /// response, one delayed past the timeout): it then learns the outcome with a HEAD.
    public func hidesOutcome(readTimeout: Duration) -> Bool {
        family.hidesOutcome(self, readTimeout: readTimeout)
    }
}

/// A synthesized response for the `respond` action: 401 with `WWW-Authenticate`, 413, 500, 503 with
/// `Retry-After`, …
public struct FaultResponse: Sendable, Hashable {
    /// 100…599.
    public var status: Int
    /// Fields in order (scenario files give an object; its keys are sorted by name).
    public var fields: [FaultHeader]
    public var body: String

    public init(status: Int, fields: [FaultHeader] = [], body: String = "") {
        self.status = status
        self.fields = fields
        self.body = body
    }
}

/// One header field of a synthesized response.
public struct FaultHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The stream an action shapes: `upstream` is client → server (the request), `downstream` server → client.
public enum FaultDirection: String, Sendable, Hashable {
    case upstream
    case downstream
    case both
}
