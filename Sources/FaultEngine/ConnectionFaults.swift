import SquallCore

/// One connection's faults: its arms, its response byte count and its latest request's upload, fed the
/// connection's `FaultEvent`s by its flow, returning the `FaultDecision`s to execute. Pure and lock-free: what is
/// shared across connections (rules, `times`, draws, ordinals, learned lengths) is asked of the `FaultBudget`
/// through `FaultBudgetAccess`, only at an opening, a head, or a body chunk or tick where an arm fires.
///
/// ```
///  flow ──FaultEvent──▶ ConnectionFaults.outcome ──[FaultDecision]──▶ flow applies (reset, stall, respond, …)
///                        match → (budget: roll, times) → arm → trigger fires → (budget: times left?) → decision
/// ```
///
/// - Arming: a per-connection rule (see `FaultRule`) is judged as the connection opens; every other rule on each
///   request head, its arms replacing the previous request's. HTTP/1.1 without pipelining: response events belong
///   to the connection's latest request.
/// - Offsets: an `at-offset` arm fires on the body chunk covering its position (start ≤ position ≤ start +
///   count, count > 0), after exactly `position − start` bytes of the chunk, and at most once per request —
///   so the firing byte is the same under any chunking. A percentage resolves against the upload's length: the
///   chunk's `uploadLength`, else the length the budget learned for the request's resource. Without either, the
///   rule is reported once for that request (`FaultOutcome.unresolved`, the rule's `statuses` and, if it never
///   fires, `neverFiredReasons`) and its arm waits on, in case the length is learned later.
/// - Upload lengths: learned from heads (a creation's `Upload-Length` or complete `Content-Length`, given to the
///   `Location` its 104 or 2xx announces; an append's `Upload-Length`; an offset retrieval's `Upload-Length`),
///   keyed by the resource's path, read with `ResumableUpload`'s meaning of the fields, kept in the budget.
/// - Due times (`nextDue`) come from the connection's own arms, without the budget.
public struct ConnectionFaults: Sendable {
    public let connection: Int
    /// The rules the arms point into (`Arm.rule` indexes them).
    var ruleSet = FaultRuleSet(rules: [], version: -1)
    var opened = false
    var nth = 0
    /// Whether the connection is an HTTP/2 stream proxied as an exchange of its own; rules of HTTP/2's faults fire
    /// only then (`HTTP2Streams`).
    public var isHTTP2Stream = false
    var connectionArms: [Arm] = []
    var requestArms: [Arm] = []
    var responseBytes: Int64 = 0
    /// The latest request's upload.
    var upload: RequestUpload?
    /// What the latest request met, for the arms that did not fire in it (`+Unfired`): its interim responses,
    /// whether its final response came, how far its body reached in the upload.
    var met = RequestMet()

    struct Arm: Sendable {
        var rule: Int
        var since: Duration
        /// Set once the arm was reported unresolvable in its request (it is reported once, and waits on).
        var reported = false
    }

    public init(connection: Int, isHTTP2Stream: Bool = false) {
        self.connection = connection
        self.isHTTP2Stream = isHTTP2Stream
    }

    var rules: [FaultRule] { ruleSet.rules }

    /// Feeds one event of the connection; returns the faults that fire at it (due delayed triggers first, then in
    /// rule order), the rules that matched its request but cannot be placed in it, and for a head whether an arm
    /// waits on body bytes. The budget is asked only when the event needs it.
    public mutating func outcome(_ event: FaultEvent, budget: some FaultBudgetAccess) -> FaultOutcome {
        if case .connectionOpened(_, let nth, let time) = event {
            return asking(budget) { faults, budget, _ in faults.open(nth: nth, time: time, budget: &budget) }
        }
        guard opened else { return FaultOutcome() }
        switch event {
        case .connectionOpened:
            self = ConnectionFaults(connection: connection, isHTTP2Stream: isHTTP2Stream)
            return FaultOutcome()
        case .connectionClosed:
            // The latest request's arms that did not fire say why on their rules.
            if !requestArms.isEmpty { _ = asking(budget) { faults, budget, _ in faults.noteUnfired(budget: &budget) } }
            self = ConnectionFaults(connection: connection, isHTTP2Stream: isHTTP2Stream)
            return FaultOutcome()
        case .due(_, let time):
            guard isDue(at: time) else { return FaultOutcome() }
            return asking(budget) { faults, budget, _ in faults.due(time: time, budget: &budget) }
        case .requestHead(_, let head, let time):
            var outcome = asking(budget) { faults, budget, _ in
                faults.due(time: time, budget: &budget) + faults.request(head, time: time, budget: &budget)
            }
            outcome.watchesBody = watchesBody
            return outcome
        case .requestBody(_, let count, let offset, let length, let time):
            if let offset, count > 0 { met.bodyEnd = max(met.bodyEnd ?? 0, offset + Int64(count)) }
            guard isDue(at: time) || bodyNeedsBudget(count: count, at: offset, of: length) else {
                return FaultOutcome()
            }
            return asking(budget) { faults, budget, unresolved in
                faults.due(time: time, budget: &budget)
                    + faults.requestBody(
                        count: count, at: offset, of: length, time: time, budget: &budget, unresolved: &unresolved)
            }
        case .responseHead(_, let head, let time):
            if head.isInformational { met.interims += 1 } else { met.finalResponse = true }
            var outcome = asking(budget) { faults, budget, _ in
                faults.learn(from: head, budget: &budget)
                return faults.due(time: time, budget: &budget)
                    + faults.response(informational: head.isInformational, time: time, budget: &budget)
            }
            outcome.watchesBody = watchesBody
            return outcome
        case .responseBody(_, let count, let time):
            guard isDue(at: time) || responseBodyFires(count: count) else {
                if count > 0 { responseBytes += Int64(count) }
                return FaultOutcome()
            }
            return asking(budget) { faults, budget, _ in
                faults.due(time: time, budget: &budget) + faults.responseBody(count: count, time: time, budget: &budget)
            }
        }
    }

    /// Runs `body` on the budget, alone, after taking a rule change the connection does not hold yet; reports
    /// what fired or could not be placed (outside the lock).
    mutating func asking(
        _ access: some FaultBudgetAccess,
        _ body: (inout ConnectionFaults, inout FaultBudget, inout [UnresolvedFault]) -> [FaultDecision]
    ) -> FaultOutcome {
        let outcome = access.withBudget { budget in
            var unresolved: [UnresolvedFault] = []
            var decisions =
                opened && budget.version != version ? take(budget.change(since: version), budget: &budget) : []
            decisions += body(&self, &budget, &unresolved)
            return FaultOutcome(decisions: decisions, unresolved: unresolved)
        }
        if !outcome.decisions.isEmpty || !outcome.unresolved.isEmpty { access.report(outcome) }
        return outcome
    }

    private mutating func open(nth: Int, time: Duration, budget: inout FaultBudget) -> [FaultDecision] {
        self = ConnectionFaults(connection: connection, isHTTP2Stream: isHTTP2Stream)
        opened = true
        self.nth = nth
        ruleSet = budget.ruleSet
        return armConnectionRules(rules.indices, time: time, budget: &budget)
    }

    /// Judges the per-connection rules among `indices`: fires the immediate ones, arms the delayed ones.
    mutating func armConnectionRules(
        _ indices: some Sequence<Int>, time: Duration, budget: inout FaultBudget
    ) -> [FaultDecision] {
        var decisions: [FaultDecision] = []
        for index in indices where rules[index].armsPerConnection {
            let rule = rules[index]
            if let wanted = rule.match.nthConnection, wanted != nth { continue }
            // A window still ahead arms now and fires at its start (see `due`), so long-lived connections get it.
            if case .window(let from, _) = rule.trigger, time < from {
                connectionArms.append(Arm(rule: index, since: time))
                continue
            }
            guard Self.inWindow(rule.trigger, time), budget.roll(index) else { continue }
            if case .after = rule.trigger {
                connectionArms.append(Arm(rule: index, since: time))
            } else if let decision = budget.fire(index, on: connection, time: time) {
                decisions.append(decision)
            }
        }
        return decisions
    }

    /// Whether a delayed arm is due at `time` (an `after` delay passed, a window opened).
    func isDue(at time: Duration) -> Bool {
        func due(_ arm: Arm) -> Bool {
            switch rules[arm.rule].trigger {
            case .after(let delay): time >= arm.since + delay
            case .window(let from, _): time >= from
            default: false
            }
        }
        return connectionArms.contains(where: due) || requestArms.contains(where: due)
    }

    /// Fires the delayed arms that are due at `time`: `after` delays that passed, and connection windows that
    /// opened (rolled then; a window already over is dropped).
    mutating func due(time: Duration, budget: inout FaultBudget) -> [FaultDecision] {
        var ready: [Int] = []
        var windows: [Int] = []
        let rules = self.rules
        for keyPath in [\ConnectionFaults.connectionArms, \ConnectionFaults.requestArms] {
            self[keyPath: keyPath].removeAll { arm in
                switch rules[arm.rule].trigger {
                case .after(let delay) where time >= arm.since + delay:
                    ready.append(arm.rule)
                    return true
                case .window(let from, let until) where time >= from:
                    if time < until { windows.append(arm.rule) }
                    return true
                default:
                    return false
                }
            }
        }
        ready += windows.filter { budget.roll($0) }
        return ready.sorted().compactMap { budget.fire($0, on: connection, time: time) }
    }

    /// When the next delayed arm is due (an `after` delay, or a window's start), or nil when none waits: the
    /// driver sends a `due` event then. Computed from the connection's own arms.
    public var nextDue: Duration? {
        func earliest(_ arms: [Arm], _ next: Duration?) -> Duration? {
            arms.reduce(next) { next, arm in
                let due: Duration
                switch rules[arm.rule].trigger {
                case .after(let delay): due = arm.since + delay
                case .window(let from, _): due = from
                default: return next
                }
                return next.map { min($0, due) } ?? due
            }
        }
        return earliest(requestArms, earliest(connectionArms, nil))
    }

    /// Whether a rule's `window` (if any) holds `time`.
    static func inWindow(_ trigger: FaultTrigger, _ time: Duration) -> Bool {
        guard case .window(let from, let until) = trigger else { return true }
        return from <= time && time < until
    }
}
