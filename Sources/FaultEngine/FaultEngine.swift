import SquallCore

/// The fault engine: a value-type state machine fed `FaultEvent`s by the proxy driver, returning the
/// `FaultDecision`s to execute. Pure: no clock (times come in events), no sockets, randomness only from the seed.
///
/// ```
///  driver ──FaultEvent──▶ FaultEngine.handle ──[FaultDecision]──▶ driver executes (reset, stall, respond, …)
///                          match → roll probability → arm → trigger fires → times left? → decision
/// ```
///
/// - Arming: a per-connection rule (see `FaultRule`) is judged as a connection opens; every other rule on each
///   request head, its arms replacing the previous request's on that connection. HTTP/1.1 without pipelining:
///   response events belong to the connection's latest request.
/// - Probability: each rule draws from its own `SeededGenerator`, seeded with the engine's seed mixed with the
///   FNV-1a hash of the rule's name, once per match, in event order. The same seed and the same events give the
///   same decisions, and adding a rule does not change the others' draws.
/// - Times: checked when a trigger fires; a rule that has fired `times` times stays silent.
/// - Offsets: an `at-offset` arm fires on the body chunk covering its position (start ≤ position ≤ start +
///   count, count > 0), after exactly `position − start` bytes of the chunk, and at most once per request —
///   so the firing byte is the same under any chunking. A percentage resolves against the upload's length: the
///   chunk's `uploadLength`, else the length the engine learned for the request's resource (below). Without
///   either, the rule is reported once for that request (`FaultOutcome.unresolved`, the rule's `statuses` and, if
///   it never fires, `neverFiredReasons`) and its arm waits on, in case the length is learned later.
/// - Upload lengths: shared by the connections of the engine, the length of each upload resource once a request
///   or response told it (a creation's `Upload-Length` or complete `Content-Length`, given to the `Location` its
///   104 or 2xx announces; an append's `Upload-Length`; an offset retrieval's `Upload-Length`), keyed by the
///   resource's path, read with `ResumableUpload`'s meaning of the fields (`UploadRequestFacts`,
///   `UploadResponseFacts`). At most `uploadLengthMemory` resources; the first learned is forgotten first.
public struct FaultEngine: Sendable {
    /// How many distinct `Authorization` values `expire-auth` remembers; later ones count as new tokens.
    public static let authorizationMemory = 65_536
    /// How many upload resources' lengths the engine remembers (see "Upload lengths" above).
    public static let uploadLengthMemory = 4096

    public internal(set) var rules: [FaultRule]
    let seed: UInt64
    var states: [RuleState]
    var connections: [Int: ConnectionState] = [:]
    var authorizationFirstSeen: [String: Duration] = [:]
    var uploadLengths = UploadLengthMemory(capacity: FaultEngine.uploadLengthMemory)

    struct RuleState {
        var generator: SeededGenerator
        var fired = 0
        var matchedRequests = 0
        var armedAt: Duration?
        /// The last reason a request the rule matched could not place it.
        var unresolved: String?
    }

    struct Arm {
        var rule: Int
        var since: Duration
        /// Set once the arm was reported unresolvable in its request (it is reported once, and waits on).
        var reported = false
    }

    struct ConnectionState {
        var nth: Int
        var connectionArms: [Arm] = []
        var requestArms: [Arm] = []
        var responseBytes: Int64 = 0
        /// The latest request's upload.
        var upload: RequestUpload?
    }

    public init(rules: [FaultRule], seed: UInt64) {
        self.rules = rules
        self.seed = seed
        self.states = rules.map { RuleState(generator: SeededGenerator(seed: seed ^ Self.fnv1a($0.name))) }
    }

    /// The non-optional rules that have not fired: each one fails the scenario.
    public var neverFired: [String] {
        neverFiredIndices.map { rules[$0].name }
    }

    /// The indices of the non-optional rules that have not fired.
    var neverFiredIndices: [Int] {
        rules.indices.filter { !rules[$0].optional && states[$0].fired == 0 }
    }

    /// How many times the rule named `name` has fired.
    public func firings(of name: String) -> Int {
        rules.indices.filter { rules[$0].name == name }.reduce(0) { $0 + states[$1].fired }
    }

    /// Feeds one event; returns the faults that fire at it, in rule order (due delayed triggers first).
    public mutating func handle(_ event: FaultEvent) -> [FaultDecision] {
        outcome(event).decisions
    }

    /// Feeds one event, as `handle`; returns the faults that fire at it and the rules that matched its request but
    /// cannot be placed in it.
    public mutating func outcome(_ event: FaultEvent) -> FaultOutcome {
        switch event {
        case .requestBody(let id, let count, let offset, let length, let time):
            var unresolved: [UnresolvedFault] = []
            let decisions =
                due(on: id, time: time)
                + requestBody(on: id, count: count, at: offset, of: length, time: time, unresolved: &unresolved)
            return FaultOutcome(decisions: decisions, unresolved: unresolved)
        case .requestHead(let id, _, _), .responseHead(let id, _, _):
            let decisions = decisions(for: event)
            return FaultOutcome(decisions: decisions, watchesBody: watchesBody(on: id))
        default:
            return FaultOutcome(decisions: decisions(for: event))
        }
    }

    private mutating func decisions(for event: FaultEvent) -> [FaultDecision] {
        switch event {
        case .connectionOpened(let id, let nth, let time):
            return opened(id, nth: nth, time: time)
        case .connectionClosed(let id, _):
            connections[id] = nil
            return []
        case .tick(let time):
            return connections.keys.sorted().flatMap { due(on: $0, time: time) }
        case .due(let id, let time):
            return due(on: id, time: time)
        case .requestHead(let id, let head, let time):
            return due(on: id, time: time) + request(on: id, head: head, time: time)
        case .requestBody:
            return []
        case .responseHead(let id, let head, let time):
            learn(from: head, on: id)
            let decisions = due(on: id, time: time)
            return decisions + response(on: id, informational: head.isInformational, time: time)
        case .responseBody(let id, let count, let time):
            return due(on: id, time: time) + responseBody(on: id, count: count, time: time)
        }
    }

    private mutating func opened(_ id: Int, nth: Int, time: Duration) -> [FaultDecision] {
        connections[id] = ConnectionState(nth: nth)
        return armConnectionRules(rules.indices, on: id, nth: nth, time: time)
    }

    /// Judges the per-connection rules among `indices` on connection `id`: fires the immediate ones, arms the
    /// delayed ones.
    mutating func armConnectionRules(
        _ indices: some Sequence<Int>, on id: Int, nth: Int, time: Duration
    ) -> [FaultDecision] {
        var decisions: [FaultDecision] = []
        for index in indices where rules[index].armsPerConnection {
            let rule = rules[index]
            if let wanted = rule.match.nthConnection, wanted != nth { continue }
            // A window still ahead arms now and fires at its start (see `due`), so long-lived connections get it.
            if case .window(let from, _) = rule.trigger, time < from {
                connections[id]?.connectionArms.append(Arm(rule: index, since: time))
                continue
            }
            guard Self.inWindow(rule.trigger, time), roll(index) else { continue }
            if case .after = rule.trigger {
                connections[id]?.connectionArms.append(Arm(rule: index, since: time))
            } else if let decision = fire(index, on: id, time: time) {
                decisions.append(decision)
            }
        }
        return decisions
    }

    /// Fires the delayed arms of connection `id` that are due at `time`: `after` delays that passed, and
    /// connection windows that opened (rolled then; a window already over is dropped).
    private mutating func due(on id: Int, time: Duration) -> [FaultDecision] {
        guard var state = connections[id] else { return [] }
        var ready: [Int] = []
        var windows: [Int] = []
        for keyPath in [\ConnectionState.connectionArms, \ConnectionState.requestArms] {
            state[keyPath: keyPath].removeAll { arm in
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
        connections[id] = state
        ready += windows.filter { roll($0) }
        return ready.sorted().compactMap { fire($0, on: id, time: time) }
    }

    /// Whether a rule's `window` (if any) holds `time`.
    static func inWindow(_ trigger: FaultTrigger, _ time: Duration) -> Bool {
        guard case .window(let from, let until) = trigger else { return true }
        return from <= time && time < until
    }

    /// Rolls the rule's probability from its own generator (no draw when the outcome is certain).
    mutating func roll(_ index: Int) -> Bool {
        let probability = rules[index].probability
        if probability >= 1 { return true }
        if probability <= 0 { return false }
        return Double.random(in: 0..<1, using: &states[index].generator) < probability
    }

    /// The decision for rule `index` firing now, or nil when its `times` are used up.
    mutating func fire(
        _ index: Int, on id: Int, afterBytes: Int? = nil, offset: Int64? = nil, time: Duration
    ) -> FaultDecision? {
        let rule = rules[index]
        guard hasTimesLeft(index) else { return nil }
        states[index].fired += 1
        var expires: Duration?
        if case .window(_, let until) = rule.trigger { expires = until }
        return FaultDecision(
            rule: rule.name, connection: id, action: rule.action, direction: rule.direction, afterBytes: afterBytes,
            offset: offset, time: time, expires: expires)
    }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
