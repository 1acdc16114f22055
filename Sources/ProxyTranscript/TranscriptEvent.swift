import FaultEngine
import HTTPWire

/// One thing the proxy saw or did, stamped with the time since the proxy started and the connection it concerns.
///
/// Times are monotonic `Duration`s the proxy passes in (this module never reads a clock); connection ids are the
/// proxy's, and exchanges are numbered from 1 per connection in request order, so a response, a body range or a
/// fault names the exchange it belongs to. `jsonLine()` and `init(jsonLine:)` convert to and from JSON Lines.
public struct TranscriptEvent: Sendable, Hashable {
    /// Since the proxy started.
    public var time: Duration
    public var connection: Int
    public var kind: Kind

    public init(time: Duration, connection: Int, kind: Kind) {
        self.time = time
        self.connection = connection
        self.kind = kind
    }

    /// Records a fault the engine fired, on its connection, at `time` (when its action reached the wire; by
    /// default when it was decided).
    public init(fault decision: FaultDecision, time: Duration? = nil) {
        self.init(
            time: time ?? decision.time, connection: decision.connection, kind: .faultFired(FiredFault(decision)))
    }

    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// The proxy started, at `unixMicroseconds` of the wall clock (microseconds since 1970-01-01T00:00:00Z):
        /// the anchor that turns the other events' times into dates (`HARRecorder`). The first line of a
        /// `--transcript` file, on connection 0, at time 0; never kept in memory.
        case started(unixMicroseconds: Int64)
        /// A client connection was accepted: the client's address and the listener's, as text (`127.0.0.1:50312`).
        case opened(client: String, listener: String)
        /// A TLS handshake on one leg completed.
        case tlsEstablished(leg: TLSLeg, TLSSession)
        /// A TLS handshake on one leg failed, with the reason (an OpenSSL error string, an alert, …).
        case tlsFailed(leg: TLSLeg, reason: String)
        /// A request head arrived from the client; `exchange` counts requests on the connection from 1.
        case requestHead(exchange: Int, RequestHead)
        /// `length` request body bytes starting `offset` bytes into the body, forwarded to the upstream.
        /// `uploadOffset` is the upload's absolute offset of their first byte when known (the PATCH's
        /// `Upload-Offset` plus `offset`).
        case requestBody(exchange: Int, offset: Int64, length: Int64, uploadOffset: Int64?)
        /// By the event's time, the first `through` bytes of request `exchange`'s body had been written to the
        /// upstream's socket (the wire time of what `requestBody` recorded when it was read): `uploadThrough` is the
        /// upload offset they reached, when known. Recorded as writes complete, at most about every
        /// `ConnectionFlow.writtenEventSpacing` while more is queued, so that pacing shows as a slope.
        case requestWritten(exchange: Int, through: Int64, uploadThrough: Int64?)
        /// `length` request body bytes read from the client but not forwarded: after a fault cut the connection
        /// (reset, close) in their read, or while the proxy answered the request itself (`respond`,
        /// `expire-auth`). Same fields as `requestBody`.
        case requestBodyDropped(exchange: Int, offset: Int64, length: Int64, uploadOffset: Int64?)
        /// The request head as forwarded to the server, when a fault (`rewrite-header`) changed it; the
        /// `requestHead` event keeps what the client sent.
        case requestForwarded(exchange: Int, RequestHead)
        /// An interim (1xx) response head arrived from the server.
        case interimResponse(exchange: Int, ResponseHead)
        /// The proxy answers request `exchange` itself (a `respond` or `expire-auth` fault, a 400 for a malformed
        /// request, a 502 for an unreachable upstream): the `finalResponse` that follows is the proxy's.
        case proxyAnswered(exchange: Int)
        /// The final response head arrived from the server (or was synthesized by the proxy: see `proxyAnswered`).
        case finalResponse(exchange: Int, ResponseHead)
        /// The proxy changed the `Location` of a response to `exchange` from the upstream's absolute URL to its own
        /// (`from` and `to` are the field's values), so that the client comes back through it.
        case locationRewritten(exchange: Int, from: String, to: String)
        /// `length` response body bytes starting `offset` bytes into the body.
        case responseBody(exchange: Int, offset: Int64, length: Int64)
        /// One side of the connection ended.
        case closed(side: CloseSide, kind: CloseKind)
        /// A fault fired; the event's time is when its action reached the wire (see `FiredFault.decided`).
        case faultFired(FiredFault)
        /// A rule matched request `exchange` but cannot fire in it (`UnresolvedFault`): `reason` says why.
        case faultUnresolved(rule: String, exchange: Int, reason: String)
        /// Rule `rule` reached its position (`uploadOffset`) in creation `exchange` before the client had the
        /// server's 104 announcing the upload: the upload is held there (`Announcement.awaited`) until the
        /// `announcementWaitEnded` of the exchange.
        case announcementAwaited(exchange: Int, rule: String, uploadOffset: Int64?)
        /// The wait for creation `exchange`'s announcement is over, as `outcome` says; the held faults fire now.
        case announcementWaitEnded(exchange: Int, outcome: AnnouncementWaitEnd)
        /// An interim response to creation `exchange` was kept from the client: rule `rule` asks for its cut before
        /// the client has the announcement (`Announcement.before`). It goes on to the client only once the rule's
        /// action is over without ending the connection.
        case announcementWithheld(exchange: Int, rule: String)
        /// Whether the client was told of the upload a 104 of `exchange` announced (its `Location`): written once per
        /// exchange by the proxy, when the first such 104 reached the client (`written`), or at the connection's
        /// end when none did, saying why. The oracle and the harness read it; they never infer it.
        case clientAnnouncement(exchange: Int, location: String, outcome: ClientAnnouncementOutcome)
        /// This connection is an HTTP/2 stream, and it was reset (`RST_STREAM` with `code`, RFC 9113 §7): by the proxy
        /// toward the client (`.proxy`: a cut, a `reset-stream`, a stream a `GOAWAY` refused with `REFUSED_STREAM`) or
        /// by the client (`.client`).
        case streamReset(side: CloseSide, code: UInt32)
        /// The proxy said `GOAWAY` to this HTTP/2 connection's client (`code`): the streams above `lastStream` were
        /// not processed, and each is recorded as reset `REFUSED_STREAM` on its own connection.
        case goaway(lastStream: Int32, code: UInt32)
        /// This connection is stream `stream` of the HTTP/2 client connection `connection` (recorded after its `open`):
        /// its exchange is recorded as any other, its request and responses as the client sent and got them (HTTP/2).
        case http2Stream(connection: Int, stream: Int32)
    }
}

/// Whether the client got a creation's announcement (`TranscriptEvent.Kind.clientAnnouncement`), or why not.
public enum ClientAnnouncementOutcome: Sendable, Hashable {
    /// The proxy wrote the 104 with `Location` to the client.
    case written
    /// Rule `rule` kept it from the client for a cut before the announcement (`Announcement.before`).
    case withheld(rule: String)
    /// A `strip-interim` of rule `rule` dropped it.
    case stripped(rule: String)
    /// It was queued for the client, but the connection ended before it was written (a cut that did not wait for
    /// it, its wait timed out, the client's side held).
    case unwritten

    /// The outcome's name in the transcript.
    public var name: String {
        switch self {
        case .written: "written"
        case .withheld: "withheld"
        case .stripped: "stripped"
        case .unwritten: "unwritten"
        }
    }

    /// The rule that kept it from the client, if one did.
    public var rule: String? {
        switch self {
        case .withheld(let rule), .stripped(let rule): rule
        case .written, .unwritten: nil
        }
    }
}

/// How a wait for a creation's announcement ended (`TranscriptEvent.Kind.announcementWaitEnded`).
public enum AnnouncementWaitEnd: String, Sendable, Hashable, CaseIterable {
    /// The proxy wrote the server's 104 with `Location` to the client.
    case announced
    /// The wait's bound passed and no such 104 had reached the client (none came, or a fault kept it).
    case timedOut = "timed-out"
    /// The server's final response came first.
    case answered
    /// The connection ended first.
    case ended
    /// The rules that waited were removed (through the control API) first: nothing fires, the upload goes on.
    case withdrawn
}

/// The leg of a proxied connection: client ↔ proxy, or proxy ↔ upstream server.
public enum TLSLeg: String, Sendable, Hashable, CaseIterable {
    case client
    case upstream
}

/// What a completed TLS handshake agreed on.
public struct TLSSession: Sendable, Hashable {
    /// The server name the client asked for (RFC 6066 §3); nil when it sent none.
    public var serverName: String?
    /// The negotiated application protocol (RFC 7301); nil when none was.
    public var alpn: String?
    /// The protocol version as OpenSSL names it (`TLSv1.3`).
    public var version: String
    /// The cipher suite as OpenSSL names it (`TLS_AES_128_GCM_SHA256`).
    public var cipher: String

    public init(serverName: String?, alpn: String?, version: String, cipher: String) {
        self.serverName = serverName
        self.alpn = alpn
        self.version = version
        self.cipher = cipher
    }
}

/// Who ended a connection: the client, the upstream server, or the proxy itself (a fault, a limit, shutdown).
public enum CloseSide: String, Sendable, Hashable, CaseIterable {
    case client
    case upstream
    case proxy

    /// The peer on `side` closed.
    public init(_ side: TLSLeg) {
        self = side == .client ? .client : .upstream
    }
}

/// How a connection ended: an orderly FIN or an abortive RST.
public enum CloseKind: String, Sendable, Hashable, CaseIterable {
    case fin
    case rst
}

/// A fault as the transcript records it: the rule, the action's scenario name, its direction, where it fired and
/// when it was decided.
///
/// The event's own time is when the action reached the wire: a reset when the RST went out (after the bytes
/// before it were acknowledged), a close when the FIN did, a `respond` when its answer was written, a
/// `drop-response` or `truncate-response` when the connection closed, an effect at an offset (`stall`,
/// `latency`, …) when the bytes before it had been written, anything else when it was decided. A cut the
/// connection's end overtook (a peer reset first) is stamped at that end.
public struct FiredFault: Sendable, Hashable {
    /// The rule's name.
    public var rule: String
    /// The action's name in scenario files (`reset`, `stall`, `drop-response`, …).
    public var action: String
    public var direction: FaultDirection
    /// The upload's absolute offset for an offset trigger, the response body byte count for a response-bytes
    /// trigger; nil otherwise.
    public var offset: Int64?
    /// When the engine decided it (since the proxy started), in whole microseconds as JSON Lines write it; nil
    /// when unknown (a transcript written before the proxy recorded it).
    public var decided: Duration?

    public init(
        rule: String, action: String, direction: FaultDirection, offset: Int64? = nil, decided: Duration? = nil
    ) {
        self.rule = rule
        self.action = action
        self.direction = direction
        self.offset = offset
        self.decided = decided
    }

    /// The record of an engine decision.
    public init(_ decision: FaultDecision) {
        self.init(
            rule: decision.rule, action: decision.action.name, direction: decision.direction, offset: decision.offset,
            decided: .microseconds(TranscriptEvent.microseconds(decision.time)))
    }
}
