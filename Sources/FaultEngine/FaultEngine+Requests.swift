import HTTPWire

extension FaultEngine {
    /// Judges the per-request rules on a request head: criteria, then the nth-request count, then the window,
    /// then the probability roll. Arms whose trigger is immediate fire here; the others wait for their event.
    mutating func request(on id: Int, head: RequestHead, time: Duration) -> [FaultDecision] {
        guard let state = connections[id] else { return [] }
        connections[id]?.requestArms = []
        learn(from: head, on: id)
        let token = head.fields["Authorization"]
        var decisions: [FaultDecision] = []
        for index in rules.indices where !rules[index].armsPerConnection {
            let rule = rules[index]
            guard rule.match.matches(head), rule.match.nthConnection.map({ $0 == state.nth }) ?? true else { continue }
            states[index].matchedRequests += 1
            if let nth = rule.match.nthRequest, nth != states[index].matchedRequests { continue }
            guard Self.inWindow(rule.trigger, time) else { continue }
            if case .expireAuth = rule.action {
                decisions += expireAuth(index, on: id, token: token, time: time)
            } else if roll(index) {
                decisions += arm(index, on: id, time: time)
            }
        }
        if let token, authorizationFirstSeen[token] == nil, authorizationFirstSeen.count < Self.authorizationMemory {
            authorizationFirstSeen[token] = time
        }
        return decisions
    }

    /// `expire-auth` arms at its window's start, or at its first match; from then on a request whose token was
    /// first seen before that moment gets the 401 (each such request rolls the probability).
    private mutating func expireAuth(_ index: Int, on id: Int, token: String?, time: Duration) -> [FaultDecision] {
        if states[index].armedAt == nil {
            if case .window(let from, _) = rules[index].trigger {
                states[index].armedAt = from
            } else {
                states[index].armedAt = time
            }
        }
        guard let token, let firstSeen = authorizationFirstSeen[token], let armedAt = states[index].armedAt,
            firstSeen < armedAt, roll(index), let decision = fire(index, on: id, time: time)
        else { return [] }
        return [decision]
    }

    private mutating func arm(_ index: Int, on id: Int, time: Duration) -> [FaultDecision] {
        let rule = rules[index]
        let timing = rule.action.timing(direction: rule.direction)
        let immediate: Bool
        switch rule.trigger {
        case .onMatch, .window: immediate = timing == .anytime || timing == .requestHead
        case .after, .atOffset, .afterResponseBytes: immediate = false
        }
        guard immediate else {
            connections[id]?.requestArms.append(Arm(rule: index, since: time))
            return []
        }
        return fire(index, on: id, time: time).map { [$0] } ?? []
    }

    /// Fires `at-offset` arms whose position this chunk covers, after exactly the bytes before the position. A
    /// percentage whose upload length is unknown is reported in `unresolved`, once per request, and waits on.
    mutating func requestBody(
        on id: Int, count: Int, at uploadOffset: Int64?, of statedLength: Int64?, time: Duration,
        unresolved: inout [UnresolvedFault]
    ) -> [FaultDecision] {
        guard count > 0, let start = uploadOffset, let arms = connections[id]?.requestArms else { return [] }
        let uploadLength = self.uploadLength(on: id, stated: statedLength)
        var decisions: [FaultDecision] = []
        var kept: [Arm] = []
        for var arm in arms {
            guard case .atOffset(let position) = rules[arm.rule].trigger else {
                kept.append(arm)
                continue
            }
            guard let target = position.offset(uploadLength: uploadLength) else {
                if case .fraction(let numerator, let denominator) = position, !arm.reported, hasTimesLeft(arm.rule) {
                    let reason = unresolvedReason(numerator: numerator, denominator: denominator, on: id)
                    states[arm.rule].unresolved = reason
                    unresolved.append(
                        UnresolvedFault(rule: rules[arm.rule].name, connection: id, reason: reason, time: time))
                    arm.reported = true
                }
                kept.append(arm)
                continue
            }
            guard start <= target, target <= start + Int64(count) else {
                kept.append(arm)
                continue
            }
            let decision = fire(arm.rule, on: id, afterBytes: Int(target - start), offset: target, time: time)
            decisions += decision.map { [$0] } ?? []
        }
        connections[id]?.requestArms = kept
        return decisions
    }

    /// Whether rule `index` may still fire (its `times` are not used up).
    func hasTimesLeft(_ index: Int) -> Bool {
        rules[index].times.map { states[index].fired < $0 } ?? true
    }

    /// Interim heads fire `strip-interim` (each one, the arm stays); the final head fires the final-response
    /// actions and starts the response byte count.
    mutating func response(on id: Int, informational: Bool, time: Duration) -> [FaultDecision] {
        guard let arms = connections[id]?.requestArms else { return [] }
        let wanted: FaultAction.Timing = informational ? .interimResponse : .finalResponse
        if !informational { connections[id]?.responseBytes = 0 }
        var decisions: [FaultDecision] = []
        var kept: [Arm] = []
        for arm in arms {
            let rule = rules[arm.rule]
            guard rule.action.timing(direction: rule.direction) == wanted else {
                kept.append(arm)
                continue
            }
            if informational { kept.append(arm) }
            decisions += fire(arm.rule, on: id, time: time).map { [$0] } ?? []
        }
        connections[id]?.requestArms = kept
        return decisions
    }

    /// Fires `after-response-bytes` and `truncate-response` arms whose byte count this chunk covers.
    mutating func responseBody(on id: Int, count: Int, time: Duration) -> [FaultDecision] {
        guard count > 0, let state = connections[id] else { return [] }
        let start = state.responseBytes
        connections[id]?.responseBytes = start + Int64(count)
        var decisions: [FaultDecision] = []
        var kept: [Arm] = []
        for arm in state.requestArms {
            guard let target = responseThreshold(arm.rule), start <= target, target <= start + Int64(count) else {
                kept.append(arm)
                continue
            }
            let decision = fire(arm.rule, on: id, afterBytes: Int(target - start), offset: target, time: time)
            decisions += decision.map { [$0] } ?? []
        }
        connections[id]?.requestArms = kept
        return decisions
    }

    /// Whether an arm of connection `id` waits on body bytes.
    func watchesBody(on id: Int) -> Bool {
        connections[id]?.requestArms.contains { arm in
            if case .atOffset = rules[arm.rule].trigger { return true }
            return responseThreshold(arm.rule) != nil
        } ?? false
    }

    private func responseThreshold(_ index: Int) -> Int64? {
        if case .afterResponseBytes(let bytes) = rules[index].trigger { return bytes }
        if case .truncateResponse(let bytes) = rules[index].action { return bytes }
        return nil
    }
}
