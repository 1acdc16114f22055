import FaultEngine
import HTTPWire
import ProxyTranscript
import ResumableUpload

/// One proxied connection without its sockets: bytes read from either side go in, the two `Lane`s fill with
/// what to write (with release times), and transcript events pile up for the driver to take. Pure: times are
/// passed in, the connection's arms are its own
/// `ConnectionFaults`, and what connections share is asked of a `FaultBudgetAccess` the driver passes in.
///
/// ```
///  client bytes ──▶ request parser ──▶ heads, body ranges ──faults──▶ decisions ──▶ toUpstream lane ──▶ server
///  server bytes ──▶ response parser ─▶ heads, body ranges ──faults──▶ decisions ──▶ toClient lane   ──▶ client
/// ```
/// In http mode heads are re-serialized (a `rewrite-header` changes them; a `respond` replaces the exchange)
/// and bodies keep their framing (chunked bodies are re-chunked at the read boundaries, so a fault can cut
/// between any two content bytes). In tcp mode bytes pass untouched and only connection faults apply.
///
/// A fired fault is recorded when its action reaches the wire (see `FiredFault`): the driver reports what it
/// carried out with `wrote(at:)` after writing, and the connection's end with `finished(at:)` after the last RST
/// or FIN went out.
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
    public internal(set) var toUpstream: Lane
    /// Server → client.
    public internal(set) var toClient: Lane
    /// Requests seen so far.
    public internal(set) var requests = 0
    /// The scheme clients used (`https` or `http`): a request without `Forwarded` gets `Forwarded: proto=…;host=…`
    /// (RFC 7239) so that the server's `Location` points back through the proxy with the right scheme. Nil adds
    /// nothing.
    public var forwardedProto: String?
    /// The upstream as the gateway's 502 names it.
    public var upstreamName = "upstream"
    /// The upstream's origins (`https://host:port`, and `https://host` when the port is the scheme's default):
    /// an absolute `Location` on one of them is rewritten to the proxy's own origin (the scheme of
    /// `forwardedProto`, the `Host` the client sent), so that the client comes back through the proxy
    /// (`locationRewritten`). Empty rewrites nothing.
    public var upstreamOrigins: Set<String> = []
    /// The head and idle timeouts the client gets (`ConnectionLimits`). Default: none.
    public var limits = ConnectionLimits()
    /// The interop versions the upstream serves resumably, when known: a creation at another version gets no 104,
    /// so a cut in it never waits for one (`Announcement`). Nil: every version.
    public var upstreamInterop: Set<Int>?
    /// Whether the connection is an HTTP/2 stream proxied as an exchange of its own (`HTTP2Front`): the faults of
    /// HTTP/2 (`reset-stream`) fire only then.
    public var isHTTP2Stream: Bool {
        get { faults.isHTTP2Stream }
        set { faults.isHTTP2Stream = newValue }
    }
    /// For an HTTP/2 stream: the client's connection it came on (its connection id) and its stream id, recorded
    /// after `open` (`TranscriptEvent.Kind.http2Stream`). Setting it makes the connection an HTTP/2 stream.
    public var http2Stream: (connection: Int, stream: Int32)? {
        didSet { if http2Stream != nil { isHTTP2Stream = true } }
    }
    /// How many request heads went to the upstream: an HTTP/2 stream with one was processed, and a `GOAWAY` cannot
    /// refuse it.
    public internal(set) var forwardedHeads = 0
    /// The code a fired `reset-stream` resets the stream with, once one did: the front sends it when the flow has
    /// cut its client side.
    public internal(set) var streamResetCode: UInt32?
    /// What fired HTTP/2 faults ask of the stream's front, not yet taken (`takeHTTP2Signals`).
    public internal(set) var http2Signals: [HTTP2Signal] = []

    /// Takes the HTTP/2 signals of the faults fired so far.
    public mutating func takeHTTP2Signals() -> [HTTP2Signal] {
        defer { http2Signals = [] }
        return http2Signals
    }
    /// The `Host` of the last request, for a rewritten `Location`.
    var clientHost: String?
    /// Set when a fault ends the connection at once (not after queued bytes): the driver does it first.
    public internal(set) var immediateEnd: FlowItem?
    /// This connection's arms, response byte count and upload (the budget they share is the driver's).
    public internal(set) var faults: ConnectionFaults
    /// Whether the connection's arms wait on body bytes (as its last head outcome said); while not, body chunks
    /// are not taken to them.
    var faultsWatchBody = true
    var phase = Phase.opening
    var clientEnded = false
    var upstreamEnded = false
    /// The side that ended first, which a close after both ended names.
    var firstEnd: FlowSide?
    var ending: Ending?
    var endRecorded = false
    var lingerClientFinished = false
    var lingerUpstreamFinished = false
    /// The client's first bytes, read before the upstream was connected, replayed into the flow once it is.
    var held: [ArraySlice<UInt8>] = []
    /// Parses the held bytes only to learn when they hold a whole request head (http mode, before the upstream).
    var headProbe: HTTP1Parser?
    /// When the head being read must be whole: the first from the opening, a later one from its first byte.
    var headDeadline: Duration?
    /// Since when the connection has been idle between requests (nothing in flight, nothing queued).
    var idleSince: Duration?
    var events: [TranscriptEvent] = []
    /// A body range still growing: consecutive reads of one body become one event (at most `bodyEventLimit`
    /// bytes), so a long upload costs a few thousand events, not one per read.
    var pendingBody: TranscriptEvent?
    /// How far each request body has reached the upstream's socket (`requestWritten` events).
    var written: WrittenBody
    var requestParser = HTTP1Parser(role: .server)
    var responseParser = HTTP1Parser(role: .client)
    var request: RequestProgress?
    var response: ResponseProgress?
    /// Forwarded requests waiting for their final response: exchange number and method.
    var unanswered: [(exchange: Int, method: HTTPMethod)] = []
    /// Set after an upgrade or a parse failure: bytes pass untouched (or are dropped once a lane is cut).
    var opaque: Bool
    /// Fired faults recorded once their action reaches the wire, in the order they fired.
    var awaitingWire: [AwaitingWire] = []
    /// Faults held until the client has a creation's announcement, interim heads withheld, resets waiting for the
    /// client's interim heads, and whether the client was told of each upload (`AnnouncementGate`).
    var announcement = AnnouncementGate()

    /// Where a fired fault's action reaches the wire.
    enum WireMoment {
        /// At once: it changes nothing already queued (stripping an interim head, an effect fired from outside).
        case now
        /// Once `lane`'s entries before position `through` (`Lane.appended` then) were carried out.
        case after(FlowSide, through: Int)
        /// When the connection ends: a cut, carried out by the driver as the last thing it does.
        case atEnd
    }

    struct AwaitingWire: Sendable {
        var decision: FaultDecision
        /// The lane whose position `through` must be carried out; nil waits for the connection's end.
        var lane: FlowSide?
        var through: Int
    }

    struct RequestProgress: Sendable {
        var exchange: Int
        var upload: UploadRequestFacts
        var method: HTTPMethod
        var bodyBytes: Int64 = 0
        var chunked: Bool
        /// The proxy answered it (a `respond` or `expire-auth`): its body is read and dropped.
        var answeredLocally: Bool
        /// Whether the server will announce the upload with a 104, as the head forwarded to it reads (after any
        /// `rewrite-header`): a creation asking for resumability at a version the upstream serves.
        var serverAnnounces = false
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
        self.faults = ConnectionFaults(connection: id)
        self.written = WrittenBody(connection: id)
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
            recordPendingBody()
        }
        if let mark = written.take(at: now) { events.append(mark) }
        defer { events = [] }
        return events
    }

    /// Records an event after any body range still growing.
    mutating func emit(_ kind: TranscriptEvent.Kind, at now: Duration) {
        flushPending()
        events.append(TranscriptEvent(time: now, connection: id, kind: kind))
    }

    /// Records the body range still growing and the written mark waiting, before another event.
    private mutating func flushPending() {
        recordPendingBody()
        if let mark = written.take() { events.append(mark) }
    }

    /// Records the body range still growing, if there is one.
    private mutating func recordPendingBody() {
        guard let pending = pendingBody else { return }
        events.append(pending)
        pendingBody = nil
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
        case (
            .requestBodyDropped(let exchange, let offset, let length, let upload),
            .requestBodyDropped(let other, let next, let more, _)
        ):
            guard other == exchange, next == offset + length, length + more <= bodyEventLimit else { return nil }
            return .requestBodyDropped(exchange: exchange, offset: offset, length: length + more, uploadOffset: upload)
        case (.responseBody(let exchange, let offset, let length), .responseBody(let other, let next, let more)):
            guard other == exchange, next == offset + length, length + more <= bodyEventLimit else { return nil }
            return .responseBody(exchange: exchange, offset: offset, length: length + more)
        default:
            return nil
        }
    }

    /// Bytes read from `side` at `now`.
    mutating func received(
        _ bytes: ArraySlice<UInt8>, from side: FlowSide, at now: Duration, budget: some FaultBudgetAccess
    ) {
        if side == .client, announcement.wait != nil {
            // A fault waits for its creation's announcement: what the client sent meanwhile comes after it.
            gate(.clientInput(.bytes(bytes)), at: now, budget: budget)
        } else if opaque {
            side == .client ? toUpstream.push(bytes, at: now) : toClient.push(bytes, at: now)
        } else if side == .client {
            receivedRequestBytes(bytes, at: now, budget: budget)
        } else {
            receivedResponseBytes(bytes, at: now, budget: budget)
        }
    }

    /// `side` ended its stream (FIN or close_notify) at `now`: what was framed until the close is completed,
    /// then the end is passed on after the queued bytes.
    mutating func ended(_ side: FlowSide, at now: Duration, budget: some FaultBudgetAccess) {
        if side == .client, announcement.wait != nil {
            gate(.clientInput(.end), at: now, budget: budget)
            return
        }
        if !opaque, side == .upstream, let events = try? responseParser.finish() {
            handleResponseEvents(events, at: now, budget: budget)
        }
        side == .client ? toUpstream.pushMarker(.endStream, at: now) : toClient.pushMarker(.endStream, at: now)
    }

    /// Ends the effects of rules no longer in `names` (removed through the control API); the gate drops their held
    /// faults (with `settle`, a wait left with none ends) and lets withheld heads go when nothing withholds them any
    /// more.
    mutating func keepEffects(
        of names: Set<String>, settle: Bool = false, at now: Duration, budget: some FaultBudgetAccess
    ) {
        // The hold of a cut waiting for its interim heads is the flow's own, no rule's.
        toUpstream.keepEffects(of: names.union([Self.cutHold]))
        toClient.keepEffects(of: names)
        gate(.rules(names, settle: settle), at: now, budget: budget)
    }

    /// Records a fired fault in the transcript when its action reaches the wire (at `now` for `.now`).
    mutating func record(_ decision: FaultDecision, at now: Duration, wire: WireMoment) {
        switch wire {
        case .now:
            emit(.faultFired(FiredFault(decision)), at: now)
        case .after(let side, let through):
            awaitingWire.append(AwaitingWire(decision: decision, lane: side, through: through))
            wrote(at: now)
        case .atEnd:
            awaitingWire.append(AwaitingWire(decision: decision, lane: nil, through: 0))
        }
    }

    /// The driver carried out lane entries until `now`: faults whose action has now reached the wire are recorded
    /// at `now` (in firing order: one waits for those fired before it).
    mutating func wrote(at now: Duration) {
        let marks = written.wrote(total: toUpstream.writtenTotal, at: now)
        if !marks.isEmpty {
            recordPendingBody()
            events += marks
        }
        while let first = awaitingWire.first, let side = first.lane {
            let lane = side == .client ? toClient : toUpstream
            guard lane.carriedOut >= first.through else { return }
            awaitingWire.removeFirst()
            emit(.faultFired(FiredFault(first.decision)), at: now)
        }
    }

    /// The connection ended at `now`, its last RST or FIN sent: faults still waiting (cuts, and anything the end
    /// overtook, a fault waiting for its announcement included) are recorded at `now`.
    mutating func finished(at now: Duration, budget: some FaultBudgetAccess) {
        if let mark = written.take() { events.append(mark) }
        gate(.ended, at: now, budget: budget)
        for waiting in awaitingWire { emit(.faultFired(FiredFault(waiting.decision)), at: now) }
        awaitingWire = []
    }

    /// Where an effect fired inside the stream of a lane reaches the wire: once the bytes queued before it left.
    func afterQueued(toClientLane: Bool) -> WireMoment {
        toClientLane ? .after(.client, through: toClient.appended) : .after(.upstream, through: toUpstream.appended)
    }
}
