import FaultEngine
import HTTPWire
import ProxyTranscript

/// The connection's life, from its opening to its recorded close: each `ConnectionInput` goes in, the
/// `ConnectionAction`s its driver carries out come out.
///
/// ```
///  opened ─▶ acceptClient(by the head deadline) ─legReady─▶ awaitingRequest (relay: the client's bytes are held)
///     │          └─tlsFailed─▶ abort               ├─ a whole head (http) or a first byte (tcp) ─▶ connectUpstream
///     │                                            ├─ the head deadline ─▶ 408 (http) or close (tcp)
///     │                                            └─ the client's FIN or RST ─▶ ending (no upstream was opened)
///     └─ refuse/reset/close at the opening ─▶ abort or close
///  connectUpstream ─legReady─▶ relaying (the held bytes replayed first)
///        └─unreachable─▶ gateway: a 502 answering the held head (http), or abort (tcp)
///  relaying ─(a cut, both ends, a failure; http: a later head past its deadline: 408, idle past the idle timeout)─▶
///  ending: abort ─endSent─▶ release │ close ─endSent─▶ release │ finishWrites ─endSent─▶ drain ─drained─▶ close ─▶ …
/// ```
extension ConnectionFlow {
    /// Where the connection is.
    enum Phase: Sendable {
        case opening
        case acceptingClient
        /// The client leg is up, the upstream not yet: the client's bytes are held until they make a request (see
        /// `holdFirstRequest`), so an idle client costs no upstream connection.
        case awaitingRequest
        case connectingUpstream
        case relaying
        /// The upstream could not be reached: the flow answered the client's request with a 502 and lets it close.
        case gateway
        case ending
    }

    /// How the connection ends, as its `closed` event says.
    struct Ending: Sendable {
        var side: CloseSide
        var kind: CloseKind
        /// Whether the faults waiting for the end are recorded when it is sent (not for set-up failures).
        var recordsFaults = true
        /// A proxy close that FINs both legs and drains what the peers still send.
        var lingers = false
    }

    /// Feeds one input at `now`; returns what the driver does next. What the connection's faults share
    /// with other connections is asked of `budget`.
    public mutating func handle(
        _ input: ConnectionInput, at now: Duration, budget: some FaultBudgetAccess
    ) -> [ConnectionAction] {
        switch input {
        case .received(let bytes, let side):
            if phase == .awaitingRequest { return holdFirstRequest(bytes) }
            guard phase == .relaying else { return [] }
            catchUpRules(budget: budget, at: now)
            received(bytes, from: side, at: now, budget: budget)
            gate(.check, at: now, budget: budget)
            updateTimers(at: now)
            return endIfDecided(at: now, budget: budget)
        case .wrote:
            wrote(at: now)
            guard phase == .relaying else { return endIfDone(at: now) }
            let cut = gate(.written, at: now, budget: budget)
            guard cut.isEmpty else { return cut }
            updateTimers(at: now)
            return endIfDone(at: now)
        case .shutDown(let side):
            return [.capture(CaptureMark(side, .proxy, .fin))]
        case .opened(let client, let listener, let nth):
            emit(.opened(client: client, listener: listener), at: now)
            if let http2Stream {
                emit(.http2Stream(connection: http2Stream.connection, stream: http2Stream.stream), at: now)
            }
            let opened = faults.outcome(.connectionOpened(connection: id, nth: nth, time: now), budget: budget)
            for decision in opened.decisions { apply(decision, at: now) }
            if let end = immediateEnd {
                let kind: CloseKind = end == .reset ? .rst : .fin
                return [.capture(CaptureMark(.client, .proxy, kind))]
                    + begin(
                        Ending(side: .proxy, kind: kind),
                        then: end == .reset ? .abort(waitForAcknowledgement: false) : .close)
            }
            phase = .acceptingClient
            headDeadline = limits.headTimeout.map { now + $0 }
            return [.acceptClient(deadline: headDeadline)]
        case .legReady(let side, let session):
            if let session { emit(.tlsEstablished(leg: side, session), at: now) }
            guard side == .upstream else {
                if mode == .tcp && limits.upstreamAtAccept {
                    headDeadline = nil
                    phase = .connectingUpstream
                    return [.connectUpstream]
                }
                phase = .awaitingRequest
                return [.relay]
            }
            return upstreamReady(at: now, budget: budget)
        case .tlsFailed(let side, let reason):
            emit(.tlsFailed(leg: side, reason: reason), at: now)
            guard side == .upstream else {
                return [.capture(CaptureMark(.client, .proxy, .rst))]
                    + begin(
                        Ending(side: .proxy, kind: .rst, recordsFaults: false),
                        then: .abort(waitForAcknowledgement: false))
            }
            return [.capture(CaptureMark(.upstream, .proxy, .rst))] + unreachable(reason, at: now)
        case .upstreamUnreachable(let reason):
            return unreachable(reason, at: now)
        case .ended(let side):
            return peerEnded(side, at: now, budget: budget)
        case .failed(let side, let abruptEOF):
            return peerFailed(side, abruptEOF: abruptEOF)
        case .writeFailed(let side):
            return peerFailed(side, abruptEOF: false)
        case .reachedCut(let item):
            // A reset waits for the client's interim heads (`AnnouncementGate`); a close goes at once.
            return item == .reset ? gate(.reset(inLane: true), at: now, budget: budget) : proxyEnds(.fin)
        case .waitFailed:
            return proxyEnds(.rst)
        case .tick:
            guard phase == .relaying || phase == .awaitingRequest else { return [] }
            catchUpRules(budget: budget, at: now)
            let due = faults.outcome(.due(connection: id, time: now), budget: budget)
            for decision in due.decisions { apply(decision, at: now) }
            let cut = gate(.tick, at: now, budget: budget)
            guard cut.isEmpty else { return cut }
            let decided = endIfDecided(at: now, budget: budget)
            return decided.isEmpty ? timersDue(at: now) : decided
        case .message(let message):
            switch message {
            case .fire(let decision): apply(decision, at: now)
            case .rulesChanged(let change):
                if change.set.version > faults.version { catchUpRules(budget: budget, at: now) }
                keepEffects(of: faults.ruleNames, settle: true, at: now, budget: budget)
            case .stop: return proxyEnds(.fin)
            case .reset:
                // The peer it carried for is gone: its leg is not waited for (the driver sees its socket's error),
                // the other's written bytes still reach it before the RST.
                return proxyEnds(.rst)
            }
            return endIfDecided(at: now, budget: budget)
        case .endSent:
            return endSent(at: now, budget: budget)
        case .drained:
            let unfinished = [FlowSide.client, .upstream].filter { !lingerFinished($0) }
            return unfinished.map { .capture(CaptureMark($0, .proxy, .rst)) } + [.close]
        case .released:
            let ending = ending ?? Ending(side: .proxy, kind: .fin)
            emit(.closed(side: ending.side, kind: ending.kind), at: now)
            _ = faults.outcome(.connectionClosed(connection: id, time: now), budget: budget)
            return []
        }
    }

    /// Takes a rule change the connection's faults do not hold yet (its inbox message may come after traffic):
    /// they re-arm, the effects of removed rules end, and what fires at once applies now.
    mutating func catchUpRules(budget: some FaultBudgetAccess, at now: Duration) {
        guard budget.version > faults.version else { return }
        let decisions = faults.catchUp(budget: budget)
        keepEffects(of: faults.ruleNames, at: now, budget: budget)
        for decision in decisions { apply(decision, at: now) }
    }

    /// When the connection's next delayed trigger is due, while they reach it (not once the upstream failed).
    public var faultsDue: Duration? { phase == .relaying || phase == .awaitingRequest ? faults.nextDue : nil }

    /// Whether the driver still reads `side` (it has not ended, and the flow is relaying); not the client while a
    /// fault waits for its creation's announcement, nor while a cut waits for its interim heads (the client's bytes
    /// wait in its socket).
    public func reads(_ side: FlowSide) -> Bool {
        let clientOnly = phase == .gateway || phase == .awaitingRequest
        if side == .client, announcement.holdsClient { return false }
        return (phase == .relaying || (clientOnly && side == .client)) && !hasEnded(side)
    }

    func hasEnded(_ side: FlowSide) -> Bool {
        side == .client ? clientEnded : upstreamEnded
    }

    /// Enters the ending with `ending`, then does `action`.
    mutating func begin(_ ending: Ending, then action: ConnectionAction) -> [ConnectionAction] {
        var ending = ending
        // A gateway's close is the upstream's failure, whatever ends the exchange with the client.
        if phase == .gateway {
            ending = Ending(side: .upstream, kind: .rst, recordsFaults: false, lingers: ending.lingers)
        }
        phase = .ending
        self.ending = ending
        held = []
        return [action]
    }

    /// A fault or answer decided to end the connection at once. A reset waits, the server's lane held, until the
    /// interim heads already queued for the client are written (`AnnouncementGate`).
    mutating func endIfDecided(at now: Duration, budget: some FaultBudgetAccess) -> [ConnectionAction] {
        guard let end = immediateEnd, phase == .relaying || phase == .awaitingRequest else { return [] }
        if end == .reset, phase == .relaying {
            immediateEnd = nil
            return gate(.reset(inLane: false), at: now, budget: budget)
        }
        return proxyEnds(end == .reset ? .rst : .fin)
    }

    /// The proxy ends the connection: RSTs on both legs after the peers acknowledged what was written, or FINs on
    /// both and a drain.
    mutating func proxyEnds(_ kind: CloseKind) -> [ConnectionAction] {
        guard phase == .relaying || phase == .gateway || phase == .awaitingRequest else { return [] }
        if kind == .rst {
            return [.capture(CaptureMark(.client, .proxy, .rst)), .capture(CaptureMark(.upstream, .proxy, .rst))]
                + begin(Ending(side: .proxy, kind: .rst), then: .abort(waitForAcknowledgement: true))
        }
        return [.capture(CaptureMark(.client, .proxy, .fin)), .capture(CaptureMark(.upstream, .proxy, .fin))]
            + begin(Ending(side: .proxy, kind: .fin, lingers: true), then: .finishWrites)
    }

    /// Both peers finished and everything was written (or what is left is held forever: nothing can change any
    /// more, as Toxiproxy's timeout closes on EOF).
    private mutating func endIfDone(at now: Duration) -> [ConnectionAction] {
        if let end = immediateEnd, phase == .relaying { return proxyEnds(end == .reset ? .rst : .fin) }
        // A deferred cut ends it with its RST (its hold is not a lane held forever).
        guard phase == .relaying, clientEnded, upstreamEnded, announcement.deferredCut == nil else { return [] }
        if toUpstream.isEmpty, toClient.isEmpty {
            return begin(Ending(side: CloseSide(firstEnd ?? .client), kind: .fin), then: .close)
        }
        let heldForever = { (lane: Lane) in !lane.isEmpty && lane.nextRelease(after: now) == nil }
        return heldForever(toUpstream) || heldForever(toClient) ? proxyEnds(.fin) : []
    }

    private mutating func peerEnded(_ side: FlowSide, at now: Duration, budget: some FaultBudgetAccess)
        -> [ConnectionAction]
    {
        let mark = ConnectionAction.capture(CaptureMark(side, .peer, .fin))
        switch phase {
        case .ending:
            markLingerFinished(side)
            return [mark]
        case .gateway:
            clientEnded = true
            return [mark]
        case .awaitingRequest:
            // Nothing was forwarded (no upstream yet): the connection just closes.
            clientEnded = true
            return [mark, .capture(CaptureMark(.client, .proxy, .fin))]
                + begin(Ending(side: .client, kind: .fin), then: .close)
        case .relaying:
            if side == .client { clientEnded = true } else { upstreamEnded = true }
            if firstEnd == nil { firstEnd = side }
            ended(side, at: now, budget: budget)
            return [mark] + endIfDecided(at: now, budget: budget)
        default:
            return []
        }
    }

    /// A side failed: its peer's RST (or its FIN, for a TLS peer gone without close_notify, which the proxy's abort
    /// answers with an RST), and the proxy's RST on the other leg.
    private mutating func peerFailed(_ side: FlowSide, abruptEOF: Bool) -> [ConnectionAction] {
        if phase == .ending {
            markLingerFinished(side)
            return [.capture(CaptureMark(side, .peer, .rst))]
        }
        guard phase == .relaying || phase == .gateway || phase == .awaitingRequest else { return [] }
        let other: FlowSide = side == .client ? .upstream : .client
        let marks: [CaptureMark] =
            abruptEOF
            ? [CaptureMark(side, .peer, .fin), CaptureMark(side, .proxy, .rst)] : [CaptureMark(side, .peer, .rst)]
        return (marks + [CaptureMark(other, .proxy, .rst)]).map { .capture($0) }
            + begin(Ending(side: CloseSide(side), kind: .rst), then: .abort(waitForAcknowledgement: false))
    }

    private mutating func endSent(at now: Duration, budget: some FaultBudgetAccess) -> [ConnectionAction] {
        guard let ending, !endRecorded else { return [.release] }
        endRecorded = true
        if ending.recordsFaults { finished(at: now, budget: budget) }
        return ending.lingers ? [.drain] : [.release]
    }

    private func lingerFinished(_ side: FlowSide) -> Bool {
        hasEnded(side) || (side == .client ? lingerClientFinished : lingerUpstreamFinished)
    }

    private mutating func markLingerFinished(_ side: FlowSide) {
        if side == .client { lingerClientFinished = true } else { lingerUpstreamFinished = true }
    }

    /// The upstream could not be reached: an http-mode client gets a 502 naming the problem, a tcp one an RST.
    ///
    /// The request head is in already (the upstream is connected for it): the answer to a HEAD has no body (RFC 9110
    /// §9.3.2), and a body a client did not ask for would be read as the next response. What the client still sends
    /// is read and dropped until the answer is written, then drained before the close.
    private mutating func unreachable(_ reason: String, at now: Duration) -> [ConnectionAction] {
        upstreamEnded = true
        let first = held
        held = []
        guard mode == .http else {
            return [.capture(CaptureMark(.client, .proxy, .rst))]
                + begin(
                    Ending(side: .upstream, kind: .rst, recordsFaults: false),
                    then: .abort(waitForAcknowledgement: false))
        }
        phase = .gateway
        var head: RequestHead?
        for chunk in first where head == nil {
            guard let events = try? requestParser.feed(chunk) else { break }
            for case .requestHead(let found) in events where head == nil { head = found }
        }
        if let head {
            requests += 1
            emit(.requestHead(exchange: 1, head), at: now)
        }
        let message = "squall proxy: upstream \(upstreamName) unreachable: \(reason)"
        answer(Self.proxyError(502, message), at: now, close: true, exchange: 1, method: head?.method)
        return [.relay]
    }
}
