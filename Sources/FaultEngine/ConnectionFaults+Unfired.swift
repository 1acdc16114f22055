/// Why a rule that matched a request did not fire in it, when the request could never give it what it waits for: a
/// `truncate-response` meeting a response with no body (or no more bytes than it keeps), `strip-interim` meeting no
/// 1xx, `drop-response` or `delay-response` meeting no final response, `after-response-bytes` meeting a shorter
/// body, an `at-offset` position the request's body never reached. Noted on the rule as the request's arms are
/// dropped (the next head, the connection's close), so that a rule that never fires anywhere says why
/// (`FaultBudget.neverFiredReasons`) instead of only "never fired".
extension ConnectionFaults {
    /// What the latest request met.
    struct RequestMet: Sendable {
        var interims = 0
        var finalResponse = false
        /// The upload offset after the furthest body byte seen; nil when no upload body byte was.
        var bodyEnd: Int64?
    }

    /// Notes on each unfired arm's rule (one that has not fired yet) why it could not fire in the latest request,
    /// or that it might have (nil): the latest request's word counts.
    mutating func noteUnfired(budget: inout FaultBudget) -> [FaultDecision] {
        for arm in requestArms where budget.states[arm.rule].fired == 0 {
            budget.states[arm.rule].unfired = unfiredReason(rules[arm.rule])
        }
        return []
    }

    /// Why `rule`, armed on the latest request, could not fire in it; nil when it might have, given more time.
    func unfiredReason(_ rule: FaultRule) -> String? {
        let request = upload.map { "\($0.method) \($0.target)" } ?? "the request"
        // What the action waits for, as its family says; then what the trigger waits for.
        if let reason = rule.action.family.unfired(rule.action, in: self, request: request) { return reason }
        switch rule.trigger {
        case .afterResponseBytes(let count):
            return shortBody(request, needed: count, what: "it never reached \(count) bytes")
        case .atOffset(let position, _):
            guard let end = met.bodyEnd else {
                return met.finalResponse ? "\(request) carried no upload body (its position is in one)" : nil
            }
            let length = upload?.facts.length ?? upload?.learnedLength
            guard let target = position.offset(uploadLength: length), target > end, met.finalResponse else {
                return nil
            }
            return "\(request)'s body ended at upload offset \(end), before the position \(target)"
        default:
            return nil
        }
    }

    /// For a response-body trigger: why a final response with fewer than `needed` body bytes never fired it.
    func shortBody(_ request: String, needed: Int64, what: String) -> String? {
        guard met.finalResponse else { return "no final response came to \(request): the connection ended first" }
        guard responseBytes <= needed else { return nil }
        let body = responseBytes == 0 ? "had no body" : "had \(responseBytes) body bytes"
        return "the response to \(request) \(body): \(what)"
    }
}
