import SquallCore

extension FaultBudget {
    /// Replaces the rule set while traffic flows (the control API adding, changing or removing faults): a rule
    /// whose name stays keeps its firing count and its draws; a new one starts fresh. Returns the change for the
    /// live connections (`ConnectionFaults.change`), which re-arm from it.
    public mutating func replaceRules(with newRules: [FaultRule], time: Duration) -> FaultRuleChange {
        let oldIndexByName = Dictionary(
            rules.indices.map { (rules[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
        states = newRules.map { rule in
            oldIndexByName[rule.name].map { states[$0] }
                ?? RuleState(generator: SeededGenerator(seed: seed ^ Self.fnv1a(rule.name)))
        }
        rules = newRules
        version += 1
        changedAt = time
        return FaultRuleChange(set: ruleSet, time: time, restart: false)
    }

    /// Starts over with `newRules` and a new seed (a scenario loaded): counts and draws restart, the upload lengths
    /// learned stay known. Returns the change for the live connections, which drop their arms and arm the new
    /// per-connection rules.
    public mutating func restart(with newRules: [FaultRule], seed: UInt64, time: Duration) -> FaultRuleChange {
        var fresh = FaultBudget(rules: newRules, seed: seed)
        fresh.uploadLengths = uploadLengths
        fresh.version = version + 1
        fresh.restartVersion = fresh.version
        fresh.changedAt = time
        self = fresh
        return FaultRuleChange(set: ruleSet, time: time, restart: true)
    }
}
