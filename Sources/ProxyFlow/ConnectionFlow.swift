import FaultEngine
import HTTPWire
import ProxyTranscript

/// Asks the fault engine about one event; the driver backs it with the proxy's shared engine.
public typealias FaultOracle = (FaultEvent) -> [FaultDecision]

/// One proxied connection without its sockets: bytes read from either side go in, the two `Lane`s fill with
/// what to write (with release times), and transcript events pile up for the driver to take. Pure: times are
/// passed in, the engine is reached through a `FaultOracle`.
///
/// ```
///  client bytes ──▶ request parser ──▶ heads, body ranges ──oracle──▶ decisions ──▶ toUpstream lane ──▶ server
///  server bytes ──▶ response parser ─▶ heads, body ranges ──oracle──▶ decisions ──▶ toClient lane   ──▶ client
/// ```
/// In http mode heads are re-serialized (a `rewrite-header` changes them; a `respond` replaces the exchange)
/// and bodies keep their framing (chunked bodies are re-chunked at the read boundaries, so a fault can cut
/// between any two content bytes). In tcp mode bytes pass untouched and only connection faults apply.
/// HTTP/1.1 without pipelining is assumed for fault placement: a response belongs to the oldest forwarded
/// request still unanswered.
public struct ConnectionFlow: Sendable {
    public enum Mode: String, Sendable, Hashable {
        case http
        case tcp
    }

    public let id: Int
    public let mode: Mode
    /// Client → server.
    public var toUpstream: Lane
    /// Server → client.
    public var toClient: Lane
    /// Requests seen so far.
    public internal(set) var requests = 0
    /// The scheme clients used (`https` or `http`): a request without `Forwarded` gets `Forwarded: proto=…;host=…`
    /// (RFC 7239) so that the server's `Location` points back through the proxy with the right scheme. Nil adds
    /// nothing.
    public var forwardedProto: String?
    /// Set when a fault ends the connection at once (not after queued bytes): the driver does it first.
    public internal(set) var immediateEnd: FlowItem?
    var events: [TranscriptEvent] = []
    /// A body range still growing: consecutive reads of one body become one event (at most `bodyEventLimit`
    /// bytes), so a long upload costs a few thousand events, not one per read.
    var pendingBody: TranscriptEvent?
    var requestParser = HTTP1Parser(role: .server)
    var responseParser = HTTP1Parser(role: .client)
    var request: RequestProgress?
    var response: ResponseProgress?
    /// Forwarded requests waiting for their final response: exchange number and method.
    var unanswered: [(exchange: Int, method: HTTPMethod)] = []
    /// Set after an upgrade or a parse failure: bytes pass untouched (or are dropped once a lane is cut).
    var opaque: Bool

    struct RequestProgress: Sendable {
        var exchange: Int
        var upload: UploadContext
        var bodyBytes: Int64 = 0
        var chunked: Bool
        /// The proxy answered it (a `respond` or `expire-auth`): its body is read and dropped.
        var answeredLocally: Bool
    }

    struct ResponseProgress: Sendable {
        var exchange: Int
        var bodyBytes: Int64 = 0
        var chunked: Bool
    }

    /// `seed` feeds the lanes' jitter and slice draws (the driver mixes the scenario seed with the connection id).
    public init(id: Int, mode: Mode, seed: UInt64) {
        self.id = id
        self.mode = mode
        self.opaque = mode == .tcp
        self.toUpstream = Lane(source: .client, seed: seed)
        self.toClient = Lane(source: .upstream, seed: seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// The most bytes one body event covers.
    public static let bodyEventLimit: Int64 = 1 << 20
    /// How long a growing body range may be held back from `takeEvents(at:)`.
    public static let bodyEventAge: Duration = .milliseconds(100)

    /// Takes the transcript events recorded since the last call. With `now`, a body range still growing is kept
    /// back until it is `bodyEventAge` old (or another event or the limit ends it); without, everything is taken.
    public mutating func takeEvents(at now: Duration? = nil) -> [TranscriptEvent] {
        if let pending = pendingBody, now.map({ $0 - pending.time >= Self.bodyEventAge }) ?? true {
            events.append(pending)
            pendingBody = nil
        }
        defer { events = [] }
        return events
    }

    /// Records an event after any body range still growing.
    mutating func emit(_ kind: TranscriptEvent.Kind, at now: Duration) {
        if let pending = pendingBody {
            events.append(pending)
            pendingBody = nil
        }
        events.append(TranscriptEvent(time: now, connection: id, kind: kind))
    }

    /// Records a body range, merged into the growing one when it continues it.
    mutating func emitBody(_ kind: TranscriptEvent.Kind, at now: Duration) {
        if let pending = pendingBody, let merged = Self.merge(pending.kind, kind) {
            pendingBody?.kind = merged
            return
        }
        emit(kind, at: now)
        pendingBody = events.removeLast()
    }

    /// The two body ranges as one, when the second continues the first within the limit.
    static func merge(_ first: TranscriptEvent.Kind, _ second: TranscriptEvent.Kind) -> TranscriptEvent.Kind? {
        switch (first, second) {
        case (
            .requestBody(let exchange, let offset, let length, let upload),
            .requestBody(let other, let next, let more, _)
        ):
            guard other == exchange, next == offset + length, length + more <= bodyEventLimit else { return nil }
            return .requestBody(exchange: exchange, offset: offset, length: length + more, uploadOffset: upload)
        case (.responseBody(let exchange, let offset, let length), .responseBody(let other, let next, let more)):
            guard other == exchange, next == offset + length, length + more <= bodyEventLimit else { return nil }
            return .responseBody(exchange: exchange, offset: offset, length: length + more)
        default:
            return nil
        }
    }

    /// Bytes read from `side` at `now`.
    public mutating func received(
        _ bytes: ArraySlice<UInt8>, from side: FlowSide, at now: Duration, oracle: FaultOracle
    ) {
        if opaque {
            side == .client ? toUpstream.push(bytes, at: now) : toClient.push(bytes, at: now)
        } else if side == .client {
            receivedRequestBytes(bytes, at: now, oracle: oracle)
        } else {
            receivedResponseBytes(bytes, at: now, oracle: oracle)
        }
    }

    /// `side` ended its stream (FIN or close_notify) at `now`: what was framed until the close is completed,
    /// then the end is passed on after the queued bytes.
    public mutating func ended(_ side: FlowSide, at now: Duration, oracle: FaultOracle) {
        if !opaque, side == .upstream, let events = try? responseParser.finish() {
            handleResponseEvents(events, at: now, oracle: oracle)
        }
        side == .client ? toUpstream.pushMarker(.endStream, at: now) : toClient.pushMarker(.endStream, at: now)
    }

    /// Applies a decision made outside the byte stream (a connection opening, a tick, a rule change, a fire
    /// from the control API). A reset or close ends the connection at once.
    public mutating func apply(_ decision: FaultDecision, at now: Duration) {
        record(decision, at: now)
        switch decision.action {
        case .reset, .refuse: immediateEnd = .reset
        case .close: immediateEnd = .close
        case .respond(let response): answerIfAwaited(response, at: now)
        case .expireAuth(let challenge):
            let header = FaultHeader(name: "WWW-Authenticate", value: challenge)
            answerIfAwaited(FaultResponse(status: 401, fields: [header]), at: now)
        default: startEffect(decision, at: now)
        }
    }

    /// Answers for the server when a request waits for its final response and none was forwarded yet (then the
    /// connection closes after the answer); otherwise an answer would corrupt the framing, and the connection
    /// just closes.
    mutating func answerIfAwaited(_ response: FaultResponse, at now: Duration) {
        let awaiting = (request != nil || !unanswered.isEmpty) && self.response == nil && !toClient.isCut
        if awaiting, mode == .http {
            answer(response, at: now, close: true)
        } else {
            toClient.pushMarker(.close, at: now)
        }
    }

    /// Ends the effects of rules no longer in `names` (removed through the control API).
    public mutating func keepEffects(of names: Set<String>) {
        toUpstream.keepEffects(of: names)
        toClient.keepEffects(of: names)
    }

    /// Records a fired fault in the transcript.
    mutating func record(_ decision: FaultDecision, at now: Duration) {
        emit(.faultFired(FiredFault(decision)), at: now)
    }

    /// Starts a shaping effect on the lanes of the decision's direction (`delay-response` holds the client's).
    mutating func startEffect(_ decision: FaultDecision, at now: Duration) {
        guard let effect = LaneEffect.starting(decision.action, rule: decision.rule, at: now, expires: decision.expires)
        else { return }
        if case .delayResponse = decision.action {
            toClient.add(effect, at: now)
            return
        }
        if decision.direction != .downstream { toUpstream.add(effect, at: now) }
        if decision.direction != .upstream { toClient.add(effect, at: now) }
    }

    /// Carries out a decision fired inside the stream of `lane`'s source: cuts go after the bytes already
    /// queued in that lane, effects start now.
    mutating func applyInStream(_ decision: FaultDecision, toClientLane: Bool, at now: Duration) {
        record(decision, at: now)
        switch decision.action {
        case .reset, .refuse, .close:
            let marker: FlowItem = decision.action == .close ? .close : .reset
            toClientLane ? toClient.pushMarker(marker, at: now) : toUpstream.pushMarker(marker, at: now)
        case .truncateResponse:
            toClient.pushMarker(.close, at: now)
        case .respond(let response):
            answerIfAwaited(response, at: now)
        default:
            startEffect(decision, at: now)
        }
    }
}
