import FaultEngine
import HTTPWire
import ProxyTranscript
import ResumableUpload

/// Faults that interrupt a creation, and the server's 104 that announces its upload (`Announcement`): a client can
/// resume only an upload whose `Location` it has, and on loopback it pushes megabytes before any 104 can come back.
///
/// ```
///  at-offset fault on a creation ──(client has the 104?)── yes ─▶ fires at its byte
///          │ no, .awaited(within:)                                  ▲
///          ▼                                                        │ the 104 written to the client, the bound
///  announcementWait: the bytes before the position forwarded, ──────┘ passed, the final response, the end
///  the rest and the client's later bytes held (the client is not read)
///          │ .before
///          ▼
///  withheld: the request's interim heads kept from the client until the fault is over without a cut
/// ```
/// And at a cut: an RST reached in the upstream lane waits (`deferredCut`, at most `interimFlushLimit`) until the
/// interim heads queued for the client, and those the server had already sent, are written, so that a 104 the proxy
/// received before the cut reaches the client first.
extension ConnectionFlow {
    /// A fault held at its position until the client has its creation's announcement.
    struct AnnouncementWait: Sendable {
        var exchange: Int
        var rule: String
        /// When it fires anyway.
        var until: Duration
        /// The faults still to place in `piece`, the held one first (`afterBytes` relative to `piece`).
        var decisions: [FaultDecision]
        var piece: BodyPiece
        /// What the client sent meanwhile, fed in once the wait is over.
        var input: [AwaitedInput] = []
    }

    enum AwaitedInput: Sendable {
        /// Events already parsed from the client's bytes, after the body piece that waits.
        case events(ArraySlice<HTTP1Event>)
        case bytes(ArraySlice<UInt8>)
        case end
    }

    /// Part of a request body still to forward, and where it lies.
    struct BodyPiece: Sendable {
        var exchange: Int
        var chunked: Bool
        /// The offset of `bytes`' first byte in the request body.
        var bodyOffset: Int64
        /// The upload's absolute offset of `bytes`' first byte, when known.
        var uploadOffset: Int64?
        var bytes: ArraySlice<UInt8>

        /// The piece after its first `count` bytes.
        func dropping(_ count: Int) -> BodyPiece {
            BodyPiece(
                exchange: exchange, chunked: chunked, bodyOffset: bodyOffset + Int64(count),
                uploadOffset: uploadOffset.map { $0 + Int64(count) }, bytes: bytes.dropFirst(count))
        }
    }

    /// Interim heads of creation `exchange` kept from the client because `rule` cuts before the announcement.
    struct Withheld: Sendable {
        var exchange: Int
        var rule: String
        /// Whether the rule fired: then its effect (a hold) withholds, else its armed arm does.
        var fired = false
        /// Each head's bytes, and whether it announces the upload.
        var heads: [(bytes: ArraySlice<UInt8>, announces: Bool)] = []
    }

    /// An RST reached in the upstream lane while interim heads may still be on their way to the client.
    struct DeferredCut: Sendable {
        var since: Duration
        /// Whether the driver has polled once since (reading what the server had already sent).
        var polled = false
    }

    /// The longest a cut waits for the interim heads queued for the client.
    static let interimFlushLimit: Duration = .milliseconds(50)
    /// The hold on the server's lane while a cut decided outside the byte stream waits for those heads.
    static let cutHold = "squall-cut"

    /// Whether the client has creation `exchange`'s announcement: the 104 with `Location` was written to it.
    func clientHasAnnouncement(_ exchange: Int) -> Bool {
        guard let announced, announced.exchange == exchange else { return false }
        return toClient.carriedOut >= announced.through
    }

    /// Whether the upstream announces the upload `facts`' creation asks for (its version served, see
    /// `upstreamInterop`).
    func announces(_ facts: UploadRequestFacts) -> Bool {
        guard facts.createsResumableUpload, let version = facts.version else { return false }
        return upstreamInterop?.contains(version.rawValue) ?? true
    }

    /// How long `decision`, reached in `piece` of the current request, waits for the announcement; nil to fire now.
    func announcementBound(_ decision: FaultDecision, in piece: BodyPiece) -> Duration? {
        guard case .awaited(let within)? = decision.announcement, let request, request.exchange == piece.exchange,
            request.serverAnnounces, announcementGivenUp != piece.exchange, !clientHasAnnouncement(piece.exchange),
            unanswered.contains(where: { $0.exchange == piece.exchange })
        else { return nil }
        return within
    }

    /// Holds `decisions` (the first one waiting) and the rest of `piece` until the announcement.
    mutating func awaitAnnouncement(
        _ decisions: [FaultDecision], in piece: BodyPiece, within: Duration, at now: Duration
    ) {
        let rule = decisions[0].rule
        emit(.announcementAwaited(exchange: piece.exchange, rule: rule, uploadOffset: piece.uploadOffset), at: now)
        announcementWait = AnnouncementWait(
            exchange: piece.exchange, rule: rule, until: now + within, decisions: decisions, piece: piece)
    }

    /// Ends the wait when it is over (the client has the 104, the bound passed, the server answered): the held
    /// faults fire at their byte, and what the client sent meanwhile goes through the flow.
    mutating func resumeAfterAnnouncement(at now: Duration, budget: some FaultBudgetAccess) {
        guard let wait = announcementWait else { return }
        let outcome: AnnouncementWaitEnd
        if wait.decisions.isEmpty {
            outcome = .withdrawn
        } else if clientHasAnnouncement(wait.exchange) {
            outcome = .announced
        } else if !unanswered.contains(where: { $0.exchange == wait.exchange }) {
            outcome = .answered
            announcementGivenUp = wait.exchange
        } else if now >= wait.until {
            outcome = .timedOut
            announcementGivenUp = wait.exchange
        } else {
            return
        }
        announcementWait = nil
        emit(.announcementWaitEnded(exchange: wait.exchange, outcome: outcome), at: now)
        place(wait.decisions, in: wait.piece, at: now)
        for (index, input) in wait.input.enumerated() {
            guard announcementWait == nil else {
                // Held again (a later fault of the body): the rest waits behind it.
                announcementWait?.input += wait.input[index...]
                return
            }
            switch input {
            case .events(let events): handleRequestEvents(events, at: now, budget: budget)
            case .bytes(let bytes): received(bytes, from: .client, at: now, budget: budget)
            case .end: ended(.client, at: now, budget: budget)
            }
        }
    }

    /// Drops the held faults whose rules are no longer in `names` (removed through the control API): a removed rule
    /// never fires. When none is left the wait ends (`withdrawn`) at the next `resumeAfterAnnouncement`.
    mutating func withdrawRemovedRules(keeping names: Set<String>) {
        guard let wait = announcementWait else { return }
        let kept = wait.decisions.filter { names.contains($0.rule) }
        guard kept.count != wait.decisions.count else { return }
        announcementWait?.decisions = kept
        if let first = kept.first { announcementWait?.rule = first.rule }
    }

    /// The connection ended with a fault still waiting for its announcement: the held faults are recorded at the
    /// end, as cuts the end overtook.
    mutating func abandonAnnouncementWait(at now: Duration) {
        guard let wait = announcementWait else { return }
        announcementWait = nil
        emit(.announcementWaitEnded(exchange: wait.exchange, outcome: .ended), at: now)
        for decision in wait.decisions { record(decision, at: now, wire: .atEnd) }
    }

    /// Queues an interim head for the client, or keeps a 104 back for a cut before the announcement (a 100
    /// Continue or a 103 goes on: the client may wait for the first); notes a 104 that announces an upload (its
    /// `Location`).
    mutating func forwardInterim(_ bytes: ArraySlice<UInt8>, _ head: ResponseHead, exchange: Int, at now: Duration) {
        let announces = head.status == 104 && UploadResponseFacts(head, requestVersion: nil).resourcePath != nil
        if head.status == 104, let rule = withholdingRule(for: exchange) {
            if withheld?.exchange != exchange { withheld = Withheld(exchange: exchange, rule: rule) }
            withheld?.heads.append((bytes, announces))
            emit(.announcementWithheld(exchange: exchange, rule: rule), at: now)
            return
        }
        queueInterim(bytes, announces: announces, exchange, at: now)
    }

    private mutating func queueInterim(_ bytes: ArraySlice<UInt8>, announces: Bool, _ exchange: Int, at now: Duration) {
        toClient.push(bytes, at: now)
        interimsThrough = toClient.appended
        // The first announcement of the exchange counts (the client resumes from the first it reads).
        if announces, announced?.exchange != exchange { announced = (exchange, toClient.appended) }
    }

    /// The rule keeping creation `exchange`'s interim heads from the client, if one does: an armed `at-offset` arm
    /// of the request asking for its cut before the announcement, or such a rule that fired and cut the connection
    /// or still holds the upload.
    func withholdingRule(for exchange: Int) -> String? {
        if let withheld, withheld.exchange == exchange, withheld.fired {
            let holds = toUpstream.isCut || toClient.isCut || toUpstream.activeRules.contains(withheld.rule)
            return holds ? withheld.rule : nil
        }
        guard let request, request.exchange == exchange, request.serverAnnounces else { return nil }
        return faults.cutsBeforeAnnouncement
    }

    /// A fault asking for its cut before the announcement fired in `exchange`: its hold keeps withholding.
    mutating func firedBeforeAnnouncement(_ decision: FaultDecision, exchange: Int) {
        guard decision.announcement == .before else { return }
        if withheld?.exchange != exchange { withheld = Withheld(exchange: exchange, rule: decision.rule) }
        withheld?.fired = true
        withheld?.rule = decision.rule
    }

    /// Lets the withheld interim heads go once nothing withholds them any more (or, with `answered`, before that
    /// exchange's final response), or drops them when the exchange will never reach the client (the connection is
    /// cut, the proxy answered it, the server's side ended: nothing may follow its end of stream).
    mutating func releaseWithheld(at now: Duration, answered: Int? = nil) {
        guard let held = withheld else { return }
        let answeredLocally = request?.exchange == held.exchange && request!.answeredLocally
        if toClient.isCut || toUpstream.isCut || upstreamEnded || answeredLocally {
            // They never go; what comes later for the exchange is withheld too (the rule stays).
            withheld?.heads = []
            return
        }
        guard answered == held.exchange || withholdingRule(for: held.exchange) == nil else { return }
        withheld = nil
        for head in held.heads { queueInterim(head.bytes, announces: head.announces, held.exchange, at: now) }
    }

    /// The driver reached `item` (a cut) in a lane: an RST waits until the interim heads queued for the client are
    /// written (one poll first, for those the server already sent), at most `interimFlushLimit`. The server's lane
    /// is held meanwhile, so that the driver does not reach the cut again and again.
    mutating func reached(_ item: FlowItem, at now: Duration) -> [ConnectionAction] {
        guard item == .reset, mode == .http, !opaque else { return proxyEnds(item == .reset ? .rst : .fin) }
        if deferredCut == nil {
            deferredCut = DeferredCut(since: now)
            toUpstream.holdEverything(rule: Self.cutHold)
        }
        return cutOnceInterimsWritten(at: now)
    }

    /// The deferred cut, when the interim heads for the client are written or its time is up.
    mutating func cutOnceInterimsWritten(at now: Duration) -> [ConnectionAction] {
        guard let cut = deferredCut else { return [] }
        // Unwritten and still on their way (not held forever by a stall of the client's lane).
        let unwritten = toClient.carriedOut < interimsThrough && toClient.nextRelease(after: now) != nil
        guard (cut.polled && !unwritten) || now >= cut.since + Self.interimFlushLimit else { return [] }
        deferredCut = nil
        return proxyEnds(.rst)
    }

    /// When the flow wants a tick for its announcement wait or deferred cut.
    var announcementDeadline: Duration? {
        let cut = deferredCut.map { $0.polled ? $0.since + Self.interimFlushLimit : $0.since }
        return [announcementWait?.until, cut].compactMap { $0 }.min()
    }
}
