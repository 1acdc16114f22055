import SquallCore

extension FaultEngine {
    /// Replaces the rule set while traffic flows (the control API adding, changing or removing faults).
    ///
    /// A rule whose name stays keeps its firing count, its draws and its arms (now with the new definition); a
    /// removed rule's arms are dropped; a new per-connection rule is judged on every open connection at `time`,
    /// as Toxiproxy applies a new toxic to live links (except `refuse`, which concerns only new connections).
    /// Returns the decisions that fire at once.
    public mutating func replaceRules(with newRules: [FaultRule], time: Duration) -> [FaultDecision] {
        let oldIndexByName = Dictionary(
            rules.indices.map { (rules[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        let newIndexByName = Dictionary(
            newRules.indices.map { (newRules[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        states = newRules.map { rule in
            oldIndexByName[rule.name].map { states[$0] }
                ?? RuleState(generator: SeededGenerator(seed: seed ^ Self.fnv1a(rule.name)))
        }
        let remap: (Arm) -> Arm? = { [rules] arm in
            newIndexByName[rules[arm.rule].name].map { Arm(rule: $0, since: arm.since) }
        }
        connections = connections.mapValues { state in
            var state = state
            state.connectionArms = state.connectionArms.compactMap(remap)
            state.requestArms = state.requestArms.compactMap(remap)
            return state
        }
        // A rule whose definition changed (a Toxiproxy toxic updated) arms again, replacing its live effects.
        let added = newRules.indices.filter { index in
            oldIndexByName[newRules[index].name].map { rules[$0] != newRules[index] } ?? true
        }
        rules = newRules
        let addedForLiveConnections = added.filter { rules[$0].action != .refuse }
        var decisions: [FaultDecision] = []
        for id in connections.keys.sorted() {
            guard let nth = connections[id]?.nth else { continue }
            decisions += armConnectionRules(addedForLiveConnections, on: id, nth: nth, time: time)
        }
        return decisions
    }

    /// Starts over with `newRules` and a new seed (a scenario loaded): counts and draws restart, but the open
    /// connections and the upload lengths learned stay known, and the connections get the new per-connection rules
    /// at `time` (except `refuse`). Returns the decisions that fire at once.
    public mutating func restart(with newRules: [FaultRule], seed: UInt64, time: Duration) -> [FaultDecision] {
        var fresh = FaultEngine(rules: newRules, seed: seed)
        fresh.uploadLengths = uploadLengths
        let eligible = newRules.indices.filter { newRules[$0].action != .refuse }
        var decisions: [FaultDecision] = []
        for id in connections.keys.sorted() {
            guard let nth = connections[id]?.nth else { continue }
            fresh.connections[id] = ConnectionState(nth: nth)
            decisions += fresh.armConnectionRules(eligible, on: id, nth: nth, time: time)
        }
        self = fresh
        return decisions
    }

    /// When the next delayed arm of connection `id` is due (an `after` delay, or a window's start), or nil when
    /// none waits: the driver sends a `tick` then.
    public func nextDue(on id: Int) -> Duration? {
        guard let state = connections[id] else { return nil }
        return (state.connectionArms + state.requestArms).compactMap { arm -> Duration? in
            switch rules[arm.rule].trigger {
            case .after(let delay): arm.since + delay
            case .window(let from, _): from
            default: nil
            }
        }.min()
    }

    /// The names of the rules, in order.
    public var ruleNames: [String] { rules.map(\.name) }
}
