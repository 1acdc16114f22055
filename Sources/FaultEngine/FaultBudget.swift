import SquallCore

/// What the connections of one listener share about faults (see `ConnectionFaults`), asked by value at an opening,
/// a head or a fire; pure, kept behind the driver's lock (`FaultBudgetAccess`).
///
/// - Probability: each rule draws from its own `SeededGenerator` (seed ^ FNV-1a of its name), once per match, in the
///   order the connections reach the budget: the same seed and events give the same decisions, and adding a rule
///   does not change the others' draws. `times` are claimed as a trigger fires; nth-request counts are per rule.
/// - Rule changes bump `version`; a connection holding an older `FaultRuleSet` is sent a `FaultRuleChange`, and
///   catches up before it judges more traffic (`FaultBudgetAccess.version`), or at the latest as it asks.
public struct FaultBudget: Sendable {
    /// How many distinct `Authorization` values `expire-auth` remembers; later ones count as new tokens.
    public static let authorizationMemory = 65_536
    /// How many upload resources' lengths the budget remembers.
    public static let uploadLengthMemory = 4096

    public internal(set) var rules: [FaultRule]
    /// Bumped by every rule change.
    public internal(set) var version = 0
    /// When the rules last changed, and the version of the last restart (-1: none).
    var changedAt: Duration = .zero
    var restartVersion = -1
    var seed: UInt64
    var states: [RuleState]
    var authorizationFirstSeen: [String: Duration] = [:]
    var uploadLengths = UploadLengthMemory(capacity: FaultBudget.uploadLengthMemory)

    struct RuleState: Sendable {
        var generator: SeededGenerator
        var fired = 0
        var matchedRequests = 0
        var armedAt: Duration?
        /// The last reason a request the rule matched could not place it.
        var unresolved: String?
        /// Why the latest request it was armed on, which could have placed it, never gave it what it waits for
        /// (nil when that request might have, given more time): a reason for a rule that never fired, not a
        /// status, since the next request may give it.
        var unfired: String?
    }

    public init(rules: [FaultRule], seed: UInt64) {
        self.rules = rules
        self.seed = seed
        self.states = rules.map { RuleState(generator: SeededGenerator(seed: seed ^ Self.fnv1a($0.name))) }
    }

    /// The rules as a connection keeps them.
    public var ruleSet: FaultRuleSet { FaultRuleSet(rules: rules, version: version) }

    /// The change that brings a connection holding `version` up to date: the current rules, at the last change's
    /// time, a restart if one happened since.
    func change(since version: Int) -> FaultRuleChange {
        FaultRuleChange(set: ruleSet, time: changedAt, restart: restartVersion > version)
    }

    /// The non-optional rules that have not fired: each one fails the scenario.
    public var neverFired: [String] { neverFiredIndices.map { rules[$0].name } }

    var neverFiredIndices: [Int] {
        rules.indices.filter { !rules[$0].optional && states[$0].fired == 0 }
    }

    /// How many times the rule named `name` has fired.
    public func firings(of name: String) -> Int {
        rules.indices.filter { rules[$0].name == name }.reduce(0) { $0 + states[$1].fired }
    }

    /// Rolls the rule's probability from its own generator (no draw when the outcome is certain).
    mutating func roll(_ index: Int) -> Bool {
        let probability = rules[index].probability
        if probability >= 1 { return true }
        if probability <= 0 { return false }
        return Double.random(in: 0..<1, using: &states[index].generator) < probability
    }

    /// Whether the rule may still fire (its `times` are not used up).
    func hasTimesLeft(_ index: Int) -> Bool {
        rules[index].times.map { states[index].fired < $0 } ?? true
    }

    /// The decision for the rule firing now on connection `id` (a `times` slot claimed), or nil when its `times`
    /// are used up.
    mutating func fire(
        _ index: Int, on id: Int, afterBytes: Int? = nil, offset: Int64? = nil, time: Duration
    ) -> FaultDecision? {
        guard hasTimesLeft(index) else { return nil }
        let rule = rules[index]
        states[index].fired += 1
        var expires: Duration?
        var announcement: Announcement?
        switch rule.trigger {
        case .window(_, let until): expires = until
        case .atOffset(_, let wait) where rule.action.interruptsUpload: announcement = wait
        default: break
        }
        return FaultDecision(
            rule: rule.name, connection: id, action: rule.action, direction: rule.direction, afterBytes: afterBytes,
            offset: offset, time: time, expires: expires, announcement: announcement)
    }

    /// `expire-auth` arms at its window's start, or at its first match; true when `token` was first seen before.
    mutating func tokenExpired(_ index: Int, token: String?, time: Duration) -> Bool {
        if states[index].armedAt == nil {
            if case .window(let from, _) = rules[index].trigger {
                states[index].armedAt = from
            } else {
                states[index].armedAt = time
            }
        }
        guard let token, let firstSeen = authorizationFirstSeen[token], let armedAt = states[index].armedAt else {
            return false
        }
        return firstSeen < armedAt
    }

    /// Notes when an `Authorization` value was first seen.
    mutating func sawAuthorization(_ token: String?, time: Duration) {
        if let token, authorizationFirstSeen[token] == nil, authorizationFirstSeen.count < Self.authorizationMemory {
            authorizationFirstSeen[token] = time
        }
    }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}

/// The rules a connection arms from, with the budget's `version` they were taken at.
public struct FaultRuleSet: Sendable, Hashable {
    public var rules: [FaultRule]
    public var version: Int

    public init(rules: [FaultRule], version: Int) {
        self.rules = rules
        self.version = version
    }
}

/// A rule change for live connections (the control API, a scenario loaded), sent through their inboxes; a
/// connection that meets traffic first catches up from the budget (`ConnectionFaults.catchUp`).
public struct FaultRuleChange: Sendable, Hashable {
    public var set: FaultRuleSet
    /// When it happened: added per-connection rules are judged at this time.
    public var time: Duration
    /// A restart (new seed): the connection's arms all go.
    public var restart: Bool

    public init(set: FaultRuleSet, time: Duration, restart: Bool) {
        self.set = set
        self.time = time
        self.restart = restart
    }
}

/// The lock a driver keeps its `FaultBudget` behind; connections ask it by value.
public protocol FaultBudgetAccess {
    /// The budget's rule version (`FaultBudget.version`), readable without the lock: a connection holding an older
    /// one catches up (`ConnectionFaults.catchUp`) before it judges more traffic.
    var version: Int { get }
    /// Runs `body` on the budget, alone.
    func withBudget<R: Sendable>(_ body: (inout FaultBudget) -> R) -> R
    /// Told of what a connection's faults decided (fired decisions, unresolved rules), outside the lock.
    func report(_ outcome: FaultOutcome)
}
