import HTTPWire
import ProxyTranscript
import Scenario

/// The expectations judged from the proxy's transcript.
extension OracleContext {
    /// `appends-at-server-offset`: every PATCH after an offset retrieval starts at the server's reported offset.
    func appendsAtServerOffset(_ key: String, _ wanted: Bool) -> Verdict {
        let check = AppendOffsetCheck(observation.transcript)
        let problems = check.mismatches.map { mismatch in
            "\(mismatch.request): sent \(mismatch.sent.map(String.init) ?? "no Upload-Offset"), server reported "
                + "\(mismatch.reported) (\(mismatch.reportedBy))"
        }
        var verdict = holds(key, wanted, problems: problems, judged: "\(check.judged) appends after a HEAD")
        if verdict.status == .failed { verdict.evidence += faultEvidence }
        return verdict
    }

    /// `acknowledged-bytes-kept`: no upload's acknowledged offset goes down, and no upload with acknowledged bytes
    /// is answered 404 or 410 later (`AcknowledgedBytesCheck`).
    func acknowledgedBytesKept(_ key: String, _ wanted: Bool) -> Verdict {
        let check = AcknowledgedBytesCheck(observation.transcript)
        var verdict = holds(key, wanted, problems: check.problems, judged: "\(check.resources) uploads")
        if verdict.status == .failed { verdict.evidence += faultEvidence }
        return verdict
    }

    /// `server-offset-at-cut`: after each reset at an upload offset, the first HEAD on that upload reports it.
    func serverOffsetAtCut(_ key: String, _ wanted: Bool) -> Verdict {
        let check = CutOffsetCheck(observation.transcript)
        return holds(key, wanted, problems: check.problems, judged: "\(check.cuts) cuts at an offset")
    }

    /// `refused-streams-retried`: every request of an HTTP/2 stream the proxy refused was sent again and answered.
    func refusedStreamsRetried(_ key: String, _ wanted: Bool) -> Verdict {
        let check = RefusedStreamsCheck(observation.transcript)
        var verdict = holds(key, wanted, problems: check.problems, judged: "\(check.refused) refused requests")
        if verdict.status == .failed { verdict.evidence += faultEvidence }
        return verdict
    }

    /// `server-conformance`: every answer of the server follows the draft (deviations of `allowed` rules are
    /// tolerated and listed as evidence).
    func serverConformance(_ key: String, _ wanted: Bool, allowed: [String]) -> Verdict {
        let check = ServerConformanceCheck(observation.transcript, served: observation.servedInterop)
        let tolerated = check.problems.filter { allowed.contains($0.rule.rawValue) }.map { "allowed: " + $0.line }
        let problems = check.problems.filter { !allowed.contains($0.rule.rawValue) }.map(\.line)
        var verdict = holds(key, wanted, problems: problems, judged: "\(check.judged) exchanges")
        if !tolerated.isEmpty { verdict.evidence += Evidence.capped(tolerated) }
        return verdict
    }

    /// `auth-refreshes`: requests for a token (`…/_squall/token`, or the profile's token path) after the first;
    /// skipped when token requests do not go through the proxy.
    func authRefreshes(_ key: String, _ count: Expectation.Count) -> Verdict {
        guard let path = observation.tokenPath else {
            return Verdict(
                key: key, status: .skipped, expected: count.description,
                observed: "not observable: the token requests do not go through the proxy")
        }
        let tokens = requestHeads.filter { AppendOffsetCheck.resource($0.head.target) == path }
        return counted(key, count, Int64(max(0, tokens.count - 1)), evidence: Evidence.capped(tokens.map(\.text)))
    }

    /// `requests.<METHOD>`: request heads with `method` (case-sensitive, RFC 9110 §9.1) the proxy saw.
    func requests(_ key: String, method: String, _ count: Expectation.Count) -> Verdict {
        let matching = requestHeads.filter { $0.head.method.rawValue == method }
        return counted(key, count, Int64(matching.count), evidence: Evidence.capped(matching.map(\.text)))
    }

    /// Every request head in the transcript, in order, with its evidence text.
    private var requestHeads: [(head: RequestHead, text: String)] {
        observation.transcript.events.compactMap { event in
            guard case .requestHead(let exchange, let head) = event.kind else { return nil }
            return (head, Evidence.request(head, connection: event.connection, exchange: exchange))
        }
    }
}
