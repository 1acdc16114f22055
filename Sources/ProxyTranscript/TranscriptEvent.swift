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

    /// Records a fault the engine fired, at its time and on its connection.
    public init(fault decision: FaultDecision) {
        self.init(time: decision.time, connection: decision.connection, kind: .faultFired(FiredFault(decision)))
    }

    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A client connection was accepted: the client's address and the listener's, as text (`127.0.0.1:50312`).
        case opened(client: String, listener: String)
        /// A TLS handshake on one leg completed.
        case tlsEstablished(leg: TLSLeg, TLSSession)
        /// A TLS handshake on one leg failed, with the reason (an OpenSSL error string, an alert, …).
        case tlsFailed(leg: TLSLeg, reason: String)
        /// A request head arrived from the client; `exchange` counts requests on the connection from 1.
        case requestHead(exchange: Int, RequestHead)
        /// `length` request body bytes starting `offset` bytes into the body. `uploadOffset` is the upload's
        /// absolute offset of their first byte when known (the PATCH's `Upload-Offset` plus `offset`).
        case requestBody(exchange: Int, offset: Int64, length: Int64, uploadOffset: Int64?)
        /// An interim (1xx) response head arrived from the server.
        case interimResponse(exchange: Int, ResponseHead)
        /// The final response head arrived from the server (or was synthesized by a fault).
        case finalResponse(exchange: Int, ResponseHead)
        /// `length` response body bytes starting `offset` bytes into the body.
        case responseBody(exchange: Int, offset: Int64, length: Int64)
        /// One side of the connection ended.
        case closed(side: CloseSide, kind: CloseKind)
        /// A fault fired.
        case faultFired(FiredFault)
    }
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
}

/// How a connection ended: an orderly FIN or an abortive RST.
public enum CloseKind: String, Sendable, Hashable, CaseIterable {
    case fin
    case rst
}

/// A fault as the transcript records it: the rule, the action's scenario name, its direction, and where it fired.
public struct FiredFault: Sendable, Hashable {
    /// The rule's name.
    public var rule: String
    /// The action's name in scenario files (`reset`, `stall`, `drop-response`, …).
    public var action: String
    public var direction: FaultDirection
    /// The upload's absolute offset for an offset trigger, the response body byte count for a response-bytes
    /// trigger; nil otherwise.
    public var offset: Int64?

    public init(rule: String, action: String, direction: FaultDirection, offset: Int64? = nil) {
        self.rule = rule
        self.action = action
        self.direction = direction
        self.offset = offset
    }

    /// The record of an engine decision.
    public init(_ decision: FaultDecision) {
        self.init(
            rule: decision.rule, action: decision.action.name, direction: decision.direction, offset: decision.offset)
    }
}
