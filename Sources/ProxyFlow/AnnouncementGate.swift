import FaultEngine
import ProxyTranscript

/// Faults that interrupt a creation, and the server's 104 that announces its upload (`Announcement`): a client can
/// resume only an upload whose `Location` it has, and on loopback it pushes megabytes before any 104 can come back.
/// The gate owns every piece of that story on one connection; `ConnectionFlow.gate(_:at:budget:)` feeds it its
/// inputs and carries out the actions it returns, in one place.
///
/// ```
///  .faultReached (an at-offset fault on a creation) ─ client has the 104? ─ yes ─▶ fires at its byte (no action)
///          │ no, .awaited(within:)                                              ▲
///          ▼                                                                    │ .resume
///  waiting: the rest of the piece and the client's input (.clientInput) held ──┘ at an end of the wait: the 104
///          │                                    written (.written), the bound passed (.tick), the server answered
///          │ .before                            (.answered), its rules removed (.rules), the connection's end (.ended)
///          ▼
///  withheld: the request's interim heads (.interim) kept from the client until the fault is over without a cut
///
///  .reset (a cut reached in the server's lane, or decided outside the byte stream) ─▶ deferred: the server's lane
///  held (.holdServerLane) until the interim heads queued for the client are written, at most `interimFlushLimit`,
///  checked at .written and .tick ─▶ .cut
/// ```
/// Whether the client was told of each creation's upload is decided here too, once (`clientAnnouncement`): the first
/// 104 with `Location` written to it, or, at the connection's end, why none was (withheld, stripped, unwritten).
struct AnnouncementGate: Sendable {
    /// What the gate reads of the connection at an input.
    struct View: Sendable {
        var now: Duration
        /// The client lane's entries carried out, and whether what is queued there will leave (not held forever).
        var clientCarriedOut: Int
        var clientLaneMoves: Bool
        /// Whether a lane is cut, or the server's side ended: interim heads can no longer reach the client.
        var cut: Bool
        var upstreamEnded: Bool
        /// Forwarded exchanges still waiting for their final response.
        var unanswered: [Int]
        /// The current request: its exchange, whether the server will announce it, whether the proxy answered it.
        var request: (exchange: Int, serverAnnounces: Bool, answeredLocally: Bool)?
        /// The rule of an armed arm asking for its cut before the announcement (`ConnectionFaults`).
        var cutsBeforeAnnouncement: String?
        /// The rules with an effect on the server's lane.
        var serverLaneRules: [String]
        /// Whether the connection carries HTTP heads (http mode, not upgraded): else no interim head can come.
        var interimHeads: Bool
    }

    enum Input: Sendable {
        /// Faults reached at the start of `piece` (`afterBytes` relative to it) in a request body, the first one
        /// next: it waits when it asks for the announcement, the client has not got it and the server will send it.
        case faultReached([FaultDecision], BodyPiece)
        /// The client sent more while a fault waits: it goes through the flow after the wait.
        case clientInput(AwaitedInput)
        /// An interim head the server sent for `exchange`: a 104 with `location` announces the upload;
        /// `strippedBy` the `strip-interim` rule that keeps it from the client.
        case interim(ArraySlice<UInt8>, InterimHead, strippedBy: String?)
        /// An interim head was pushed into the client's lane, which then ends at `through` (entries appended);
        /// `dropped` when the lane dropped it (cut, or a closing stall): then it never reaches the client.
        case interimQueued(InterimHead, through: Int, dropped: Bool)
        /// The server's final response to `exchange` is about to go to the client.
        case answered(Int)
        /// Something else changed (the client's bytes read, a rule change): the wait may be over.
        case check
        /// The driver carried out lane entries.
        case written
        case tick
        /// The rules loaded now (a rule change): the held faults of removed rules are dropped; with `settle`, the wait
        /// may be over (withdrawn) before the withheld heads are looked at.
        case rules(Set<String>, settle: Bool)
        /// A reset, reached in the server's lane (`inLane`) or decided outside the byte stream. It is the one place
        /// a reset waits: in the lane, always (the server may have sent interim heads the proxy has not read yet);
        /// decided outside, while interim heads queued for the client are unwritten. Either way one poll first.
        case reset(inLane: Bool)
        /// The connection ended (its last RST or FIN sent).
        case ended
        /// Steps of the inputs above, each taken after the actions before it were carried out: the withheld heads
        /// let go (before exchange `answered`'s final response) or dropped, then with `thenCut` a deferred cut
        /// checked.
        case release(answered: Int?, thenCut: Bool)
        /// A deferred cut checked: it goes once the interim heads for the client are written, or its time is up.
        case cutDue
    }

    enum Action: Sendable {
        case emit(TranscriptEvent.Kind)
        /// Queue an interim head for the client (then report `.interimQueued`).
        case queueInterim(ArraySlice<UInt8>, InterimHead)
        /// The wait is over: place the held faults in the rest of the piece, then feed the client's held input.
        case resume([FaultDecision], BodyPiece, [AwaitedInput])
        /// Record the held faults when the connection's end reaches the wire (the end overtook them).
        case recordAtEnd([FaultDecision])
        /// Hold the server's lane (`cutHold`) while a reset waits.
        case holdServerLane
        /// Reset the connection now.
        case cut
        /// Feed the gate this step next, once the actions before it are carried out.
        case next(Input)
    }

    /// A fault held at its position until the client has its creation's announcement.
    struct Wait: Sendable {
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

    /// Interim heads of creation `exchange` kept from the client because `rule` cuts before the announcement.
    struct Withheld: Sendable {
        var exchange: Int
        var rule: String
        /// Whether the rule fired: then its effect (a hold) withholds, else its armed arm does.
        var fired = false
        var heads: [(bytes: ArraySlice<UInt8>, head: InterimHead)] = []
    }

    /// A reset waiting while interim heads may still be on their way to the client.
    struct DeferredCut: Sendable {
        var since: Duration
        /// Whether the driver has polled once since (reading what the server had already sent).
        var polled = false
    }

    /// What the client was told of a creation's upload, until it is settled (`clientAnnouncement`).
    struct Telling: Sendable {
        var location: String
        /// Why the client has not got it yet.
        var outcome: ClientAnnouncementOutcome
    }

    /// The longest a cut waits for the interim heads queued for the client.
    static let interimFlushLimit: Duration = .milliseconds(50)

    private(set) var wait: Wait?
    private(set) var withheld: Withheld?
    private(set) var deferredCut: DeferredCut?
    /// The first 104 with `Location` queued for the client in the latest exchange that had one: its exchange and
    /// the client lane's position after it, so that the client has it once the lane carried that far.
    /// `queued` is false when the lane dropped it: it is never written, whatever the lane's position says.
    private var announced: (exchange: Int, through: Int, queued: Bool)?
    /// The client lane's position after the last interim head queued for the client.
    private var interimsThrough = 0
    /// The exchange whose wait ended without the announcement: its later faults fire at their position.
    private var givenUp: Int?
    /// Creations announced by the server whose telling is not settled yet, by exchange.
    private var telling: [Int: Telling] = [:]
    private var told: Set<Int> = []

    /// Whether the client is not read: a fault waits for its announcement, or a cut for the interim heads.
    var holdsClient: Bool { wait != nil || deferredCut != nil }

    /// When the gate wants a tick: the end of a wait's bound, or of a deferred cut (at once before its poll).
    var deadline: Duration? {
        let cut = deferredCut.map { $0.polled ? $0.since + Self.interimFlushLimit : $0.since }
        return [wait?.until, cut].compactMap { $0 }.min()
    }

    /// Whether the client has creation `exchange`'s announcement: the 104 with `Location` was written to it.
    func clientHasAnnouncement(_ exchange: Int, _ view: View) -> Bool {
        guard let announced, announced.exchange == exchange else { return false }
        return view.clientCarriedOut >= announced.through
    }

    /// Whether `input` can do nothing now: it only settles a wait, withheld heads, a deferred cut or an untold
    /// announcement, and there is none. The flow then skips building a `View`: `.written` comes every relay round.
    func isIdle(for input: Input) -> Bool {
        switch input {
        case .written, .tick, .check, .rules, .answered, .release, .cutDue:
            wait == nil && withheld == nil && deferredCut == nil && telling.isEmpty
        default:
            false
        }
    }

    /// Takes one input; returns what the flow carries out, in order.
    mutating func handle(_ input: Input, _ view: View) -> [Action] {
        switch input {
        case .faultReached(let decisions, let piece):
            guard let within = bound(decisions[0], in: piece, view) else {
                firedBeforeAnnouncement(decisions[0], exchange: piece.exchange)
                return []
            }
            let rule = decisions[0].rule
            wait = Wait(
                exchange: piece.exchange, rule: rule, until: view.now + within, decisions: decisions, piece: piece)
            return [.emit(.announcementAwaited(exchange: piece.exchange, rule: rule, uploadOffset: piece.uploadOffset))]
        case .clientInput(let held):
            wait?.input.append(held)
            return []
        case .interim(let bytes, let head, let strippedBy):
            return interim(bytes, head, strippedBy, view)
        case .interimQueued(let head, let through, let dropped):
            interimsThrough = through
            // The first announcement of the exchange counts (the client resumes from the first it reads).
            guard let location = head.announcedLocation else { return [] }
            if announced?.exchange != head.exchange { announced = (head.exchange, through, !dropped) }
            // Queued, it is written or not: what kept an earlier one back no longer says why.
            if !told.contains(head.exchange), !dropped || telling[head.exchange] == nil {
                telling[head.exchange] = Telling(location: location, outcome: .unwritten)
            }
            return []
        case .answered(let exchange):
            return release(view, answered: exchange)
        case .release(let answered, let thenCut):
            return release(view, answered: answered) + (thenCut ? [.next(.cutDue)] : [])
        case .cutDue:
            return cutIfDue(view)
        case .check:
            return settle(view)
        case .written:
            return tell(view) + settle(view) + [.next(.release(answered: nil, thenCut: true))]
        case .tick:
            deferredCut?.polled = true
            return settle(view) + [.next(.cutDue)]
        case .rules(let names, let settling):
            // A removed rule never fires; with none left, the wait ends (`withdrawn`) when it settles.
            if let kept = wait?.decisions.filter({ names.contains($0.rule) }) {
                wait?.decisions = kept
                if let first = kept.first { wait?.rule = first.rule }
            }
            return (settling ? settle(view) : []) + [.next(.release(answered: nil, thenCut: false))]
        case .reset(let inLane):
            guard view.interimHeads, inLane || view.clientCarriedOut < interimsThrough else { return [.cut] }
            // Decided outside the byte stream, it starts (again) from now; reached in the lane, once.
            guard inLane else {
                deferredCut = DeferredCut(since: view.now)
                return [.holdServerLane]
            }
            guard deferredCut == nil else { return cutIfDue(view) }
            deferredCut = DeferredCut(since: view.now)
            return [.holdServerLane] + cutIfDue(view)
        case .ended:
            return end(view)
        }
    }

    /// How long `decision`, reached in `piece` of the current request, waits for the announcement; nil to fire now.
    private func bound(_ decision: FaultDecision, in piece: BodyPiece, _ view: View) -> Duration? {
        guard case .awaited(let within)? = decision.announcement, let request = view.request,
            request.exchange == piece.exchange, request.serverAnnounces, givenUp != piece.exchange,
            !clientHasAnnouncement(piece.exchange, view), view.unanswered.contains(piece.exchange)
        else { return nil }
        return within
    }

    /// Ends the wait when it is over (the client has the 104, the bound passed, the server answered, its rules were
    /// removed): the held faults are placed at their byte, and what the client sent meanwhile goes through the flow.
    private mutating func settle(_ view: View) -> [Action] {
        guard let wait else { return [] }
        let outcome: AnnouncementWaitEnd
        if wait.decisions.isEmpty {
            outcome = .withdrawn
        } else if clientHasAnnouncement(wait.exchange, view) {
            outcome = .announced
        } else if !view.unanswered.contains(wait.exchange) {
            outcome = .answered
            givenUp = wait.exchange
        } else if view.now >= wait.until {
            outcome = .timedOut
            givenUp = wait.exchange
        } else {
            return []
        }
        self.wait = nil
        return [
            .emit(.announcementWaitEnded(exchange: wait.exchange, outcome: outcome)),
            .resume(wait.decisions, wait.piece, wait.input),
        ]
    }

    /// An interim head from the server: a 104 goes to the client unless a cut before the announcement keeps it (a
    /// 100 Continue or a 103 goes on: the client may wait for the first), or a `strip-interim` dropped it.
    private mutating func interim(
        _ bytes: ArraySlice<UInt8>, _ head: InterimHead, _ strippedBy: String?, _ view: View
    ) -> [Action] {
        let exchange = head.exchange
        if let strippedBy {
            // The reason when no 104 of the exchange was queued for the client before it.
            if let location = head.announcedLocation, !told.contains(exchange), telling[exchange] == nil {
                telling[exchange] = Telling(location: location, outcome: .stripped(rule: strippedBy))
            }
            return []
        }
        guard head.status == 104, let rule = withholdingRule(for: exchange, view) else {
            return [.queueInterim(bytes, head)]
        }
        if withheld?.exchange != exchange { withheld = Withheld(exchange: exchange, rule: rule) }
        withheld?.heads.append((bytes, head))
        if let location = head.announcedLocation, !told.contains(exchange), telling[exchange] == nil {
            telling[exchange] = Telling(location: location, outcome: .withheld(rule: rule))
        }
        return [.emit(.announcementWithheld(exchange: exchange, rule: rule))]
    }

    /// The rule keeping creation `exchange`'s interim heads from the client, if one does: an armed `at-offset` arm
    /// of the request asking for its cut before the announcement, or such a rule that fired and cut the connection
    /// or still holds the upload.
    private func withholdingRule(for exchange: Int, _ view: View) -> String? {
        if let withheld, withheld.exchange == exchange, withheld.fired {
            return view.cut || view.serverLaneRules.contains(withheld.rule) ? withheld.rule : nil
        }
        guard let request = view.request, request.exchange == exchange, request.serverAnnounces else { return nil }
        return view.cutsBeforeAnnouncement
    }

    /// A fault that fired in `exchange` asked for its cut before the announcement: its hold keeps withholding.
    private mutating func firedBeforeAnnouncement(_ decision: FaultDecision, exchange: Int) {
        guard decision.announcement == .before else { return }
        if withheld?.exchange != exchange { withheld = Withheld(exchange: exchange, rule: decision.rule) }
        withheld?.fired = true
        withheld?.rule = decision.rule
    }

    /// Lets the withheld interim heads go once nothing withholds them any more (or, with `answered`, before that
    /// exchange's final response), or drops them when the exchange will never reach the client (the connection is
    /// cut, the proxy answered it, the server's side ended: nothing may follow its end of stream).
    private mutating func release(_ view: View, answered: Int? = nil) -> [Action] {
        guard let held = withheld else { return [] }
        let answeredLocally = view.request.map { $0.exchange == held.exchange && $0.answeredLocally } ?? false
        if view.cut || view.upstreamEnded || answeredLocally {
            // They never go; what comes later for the exchange is withheld too (the rule stays).
            withheld?.heads = []
            return []
        }
        guard answered == held.exchange || withholdingRule(for: held.exchange, view) == nil else { return [] }
        withheld = nil
        return held.heads.map { .queueInterim($0.bytes, $0.head) }
    }

    /// The deferred cut, when the interim heads for the client are written (after one poll) or its time is up.
    private mutating func cutIfDue(_ view: View) -> [Action] {
        guard let cut = deferredCut else { return [] }
        // Unwritten and still on their way (not held forever by a stall of the client's lane).
        let unwritten = view.clientCarriedOut < interimsThrough && view.clientLaneMoves
        guard (cut.polled && !unwritten) || view.now >= cut.since + Self.interimFlushLimit else { return [] }
        deferredCut = nil
        return [.cut]
    }

    /// Creations whose first 104 with `Location` the client now has: told, once.
    private mutating func tell(_ view: View) -> [Action] {
        guard let announced, announced.queued, view.clientCarriedOut >= announced.through,
            let telling = telling[announced.exchange]
        else { return [] }
        self.telling[announced.exchange] = nil
        told.insert(announced.exchange)
        return [.emit(.clientAnnouncement(exchange: announced.exchange, location: telling.location, outcome: .written))]
    }

    /// The connection ended: a fault still waiting is recorded at the end, as a cut the end overtook; the creations
    /// whose client was never told say why.
    private mutating func end(_ view: View) -> [Action] {
        var actions = tell(view)
        if let wait {
            self.wait = nil
            actions += [
                .emit(.announcementWaitEnded(exchange: wait.exchange, outcome: .ended)), .recordAtEnd(wait.decisions),
            ]
        }
        for (exchange, untold) in telling.sorted(by: { $0.key < $1.key }) {
            actions.append(
                .emit(.clientAnnouncement(exchange: exchange, location: untold.location, outcome: untold.outcome)))
        }
        telling = [:]
        return actions
    }
}
