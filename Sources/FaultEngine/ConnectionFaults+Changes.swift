extension ConnectionFaults {
    /// The budget's version of the rules the arms point into.
    public var version: Int { ruleSet.version }

    /// The names of the rules the connection holds.
    public var ruleNames: Set<String> { Set(rules.map(\.name)) }

    /// Brings the connection's rules up to the budget's (a change it was sent, or met first through traffic);
    /// returns the decisions that fire at once. Nothing when it holds them already (it opened after the change).
    ///
    /// A replacement: a rule whose name stays keeps its arms (now with the new definition); a removed rule's
    /// arms are dropped; a new per-connection rule, or one whose definition changed (a Toxiproxy toxic updated),
    /// is judged at the change's time, as Toxiproxy applies a new toxic to live links (except `refuse`, which
    /// concerns only new connections). A restart drops every arm and judges the new per-connection rules (except
    /// `refuse`).
    public mutating func catchUp(budget: some FaultBudgetAccess) -> [FaultDecision] {
        guard opened, budget.version > version else { return [] }
        return asking(budget) { _, _, _ in [] }.decisions
    }

    mutating func take(_ change: FaultRuleChange, budget: inout FaultBudget) -> [FaultDecision] {
        guard change.set.version > ruleSet.version else { return [] }
        let old = rules
        let nth = self.nth
        let newRules = change.set.rules
        let added: [Int]
        if change.restart {
            self = ConnectionFaults(connection: connection, isHTTP2Stream: isHTTP2Stream)
            opened = true
            self.nth = nth
            added = Array(newRules.indices)
        } else {
            let oldIndexByName = Dictionary(
                old.indices.map { (old[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
            let newIndexByName = Dictionary(
                newRules.indices.map { (newRules[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
            let remap: (Arm) -> Arm? = { arm in
                newIndexByName[old[arm.rule].name].map { Arm(rule: $0, since: arm.since) }
            }
            connectionArms = connectionArms.compactMap(remap)
            requestArms = requestArms.compactMap(remap)
            added = newRules.indices.filter { index in
                oldIndexByName[newRules[index].name].map { old[$0] != newRules[index] } ?? true
            }
        }
        ruleSet = change.set
        let eligible = added.filter { newRules[$0].action != .refuse }
        return armConnectionRules(eligible, time: change.time, budget: &budget)
    }
}
