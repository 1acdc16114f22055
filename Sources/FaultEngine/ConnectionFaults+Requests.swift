import HTTPWire

extension ConnectionFaults {
    /// Judges the per-request rules on a request head: criteria, then the nth-request count, then the window,
    /// then the probability roll. Arms whose trigger is immediate fire here; the others wait for their event.
    mutating func request(_ head: RequestHead, time: Duration, budget: inout FaultBudget) -> [FaultDecision] {
        _ = noteUnfired(budget: &budget)
        requestArms = []
        met = RequestMet()
        learn(from: head, budget: &budget)
        let token = head.fields["Authorization"]
        var decisions: [FaultDecision] = []
        for index in rules.indices where !rules[index].armsPerConnection {
            let rule = rules[index]
            guard rule.match.matches(head), rule.match.nthConnection.map({ $0 == nth }) ?? true else { continue }
            budget.states[index].matchedRequests += 1
            if let nth = rule.match.nthRequest, nth != budget.states[index].matchedRequests { continue }
            guard Self.inWindow(rule.trigger, time) else { continue }
            if HTTP2Streams.needsHTTP2Stream(rule.action) && !isHTTP2Stream {
                if budget.states[index].fired == 0 {
                    budget.states[index].unfired =
                        "\(rule.action.name) acts on HTTP/2 streams: \(head.method) \(head.target) came over HTTP/1.1"
                }
                continue
            }
            if case .expireAuth = rule.action {
                if budget.tokenExpired(index, token: token, time: time), budget.roll(index),
                    let decision = budget.fire(index, on: connection, time: time)
                {
                    decisions.append(decision)
                }
            } else if budget.roll(index) {
                decisions += arm(index, time: time, budget: &budget)
            }
        }
        budget.sawAuthorization(token, time: time)
        return decisions
    }

    private mutating func arm(_ index: Int, time: Duration, budget: inout FaultBudget) -> [FaultDecision] {
        let rule = rules[index]
        let timing = rule.action.timing(direction: rule.direction)
        let immediate: Bool
        switch rule.trigger {
        case .onMatch, .window: immediate = timing == .anytime || timing == .requestHead
        case .after, .atOffset, .afterResponseBytes: immediate = false
        }
        guard immediate else {
            // A rule whose `times` are used up never fires again: no arm (it would only keep the body watched).
            if budget.hasTimesLeft(index) { requestArms.append(Arm(rule: index, since: time)) }
            return []
        }
        return budget.fire(index, on: connection, time: time).map { [$0] } ?? []
    }

    /// Whether a request body chunk needs the budget: an `at-offset` arm whose position it covers, or a
    /// percentage that needs the learned length or its first report.
    func bodyNeedsBudget(count: Int, at uploadOffset: Int64?, of statedLength: Int64?) -> Bool {
        guard count > 0, let start = uploadOffset else { return false }
        let length = statedLength ?? upload?.learnedLength
        return requestArms.contains { arm in
            guard case .atOffset(let position, _) = rules[arm.rule].trigger else { return false }
            guard let target = position.offset(uploadLength: length) else {
                return upload?.method == .patch || !arm.reported
            }
            return start <= target && target <= start + Int64(count)
        }
    }

    /// Fires `at-offset` arms whose position this chunk covers, after exactly the bytes before the position. A
    /// percentage whose upload length is unknown is reported in `unresolved`, once per request, and waits on.
    mutating func requestBody(
        count: Int, at uploadOffset: Int64?, of statedLength: Int64?, time: Duration, budget: inout FaultBudget,
        unresolved: inout [UnresolvedFault]
    ) -> [FaultDecision] {
        guard count > 0, let start = uploadOffset else { return [] }
        let uploadLength = self.uploadLength(stated: statedLength, budget: budget)
        // The rules as they are now: placing the arms changes only which stay armed.
        let faults = self
        return fireCovered(from: start, count: count, time: time, budget: &budget) { arm, budget in
            guard case .atOffset(let position, _) = faults.rules[arm.rule].trigger else { return nil }
            if let target = position.offset(uploadLength: uploadLength) { return target }
            // Reported once per request; a rule whose `times` are used up never will be.
            if case .fraction(let numerator, let denominator) = position, !arm.reported {
                if budget.hasTimesLeft(arm.rule) {
                    let reason = faults.unresolvedReason(numerator: numerator, denominator: denominator)
                    budget.states[arm.rule].unresolved = reason
                    unresolved.append(
                        UnresolvedFault(
                            rule: faults.rules[arm.rule].name, connection: faults.connection, reason: reason,
                            time: time))
                }
                arm.reported = true
            }
            return nil
        }
    }

    /// Fires the request arms whose byte position (`target`: nil for an arm it does not place now) this chunk of
    /// `count` bytes from `start` covers, after exactly the bytes before the position; the others stay armed.
    private mutating func fireCovered(
        from start: Int64, count: Int, time: Duration, budget: inout FaultBudget,
        target: (inout Arm, inout FaultBudget) -> Int64?
    ) -> [FaultDecision] {
        var decisions: [FaultDecision] = []
        var kept: [Arm] = []
        for var arm in requestArms {
            guard let position = target(&arm, &budget), start <= position, position <= start + Int64(count) else {
                kept.append(arm)
                continue
            }
            let decision = budget.fire(
                arm.rule, on: connection, afterBytes: Int(position - start), offset: position, time: time)
            decisions += decision.map { [$0] } ?? []
        }
        requestArms = kept
        return decisions
    }

    /// Interim heads fire `strip-interim` (each one, the arm stays); the final head fires the final-response
    /// actions and starts the response byte count.
    mutating func response(informational: Bool, time: Duration, budget: inout FaultBudget) -> [FaultDecision] {
        let wanted: FaultAction.Timing = informational ? .interimResponse : .finalResponse
        if !informational { responseBytes = 0 }
        var decisions: [FaultDecision] = []
        var kept: [Arm] = []
        for arm in requestArms {
            let rule = rules[arm.rule]
            guard rule.action.timing(direction: rule.direction) == wanted else {
                kept.append(arm)
                continue
            }
            if informational { kept.append(arm) }
            decisions += budget.fire(arm.rule, on: connection, time: time).map { [$0] } ?? []
        }
        requestArms = kept
        return decisions
    }

    /// Whether a response body chunk reaches an `after-response-bytes` or `truncate-response` arm's count.
    func responseBodyFires(count: Int) -> Bool {
        guard count > 0 else { return false }
        return requestArms.contains { arm in
            guard let target = responseThreshold(arm.rule) else { return false }
            return responseBytes <= target && target <= responseBytes + Int64(count)
        }
    }

    /// Fires `after-response-bytes` and `truncate-response` arms whose byte count this chunk covers.
    mutating func responseBody(count: Int, time: Duration, budget: inout FaultBudget) -> [FaultDecision] {
        guard count > 0 else { return [] }
        let start = responseBytes
        responseBytes = start + Int64(count)
        let faults = self
        return fireCovered(from: start, count: count, time: time, budget: &budget) { arm, _ in
            faults.responseThreshold(arm.rule)
        }
    }

    /// The rule of an armed `at-offset` arm of the latest request that interrupts it before the client has the
    /// upload's announcement (`Announcement.before`), if one waits: the flow keeps the request's 104s from the client
    /// until it fired.
    public var cutsBeforeAnnouncement: String? {
        for arm in requestArms {
            let rule = rules[arm.rule]
            if case .atOffset(_, .before) = rule.trigger, rule.action.interruptsUpload { return rule.name }
        }
        return nil
    }

    /// Whether an arm waits on body bytes.
    public var watchesBody: Bool {
        requestArms.contains { arm in
            if case .atOffset = rules[arm.rule].trigger { return true }
            return responseThreshold(arm.rule) != nil
        }
    }

    private func responseThreshold(_ index: Int) -> Int64? {
        if case .afterResponseBytes(let bytes) = rules[index].trigger { return bytes }
        return rules[index].action.responseBodyBytes
    }
}
