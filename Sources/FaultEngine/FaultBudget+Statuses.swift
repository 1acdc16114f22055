extension FaultBudget {
    /// Each rule's standing, in rule order.
    public var statuses: [FaultRuleStatus] {
        rules.indices.map { index in
            let state = states[index]
            let status: FaultRuleStatus.State
            if !hasTimesLeft(index) {
                status = .exhausted
            } else if state.fired > 0 {
                status = .fired
            } else {
                status = state.unresolved == nil ? .armed : .unresolvable
            }
            return FaultRuleStatus(name: rules[index].name, fired: state.fired, state: status, reason: state.unresolved)
        }
    }

    /// For the rules in `neverFired` that met a request they could not be placed in, or whose latest request never
    /// gave them what they wait for: why, by rule name.
    public var neverFiredReasons: [String: String] {
        var reasons: [String: String] = [:]
        for index in neverFiredIndices {
            if let reason = states[index].unresolved ?? states[index].unfired { reasons[rules[index].name] = reason }
        }
        return reasons
    }
}
