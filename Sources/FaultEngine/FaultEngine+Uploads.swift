import HTTPWire
import ResumableUpload

extension FaultEngine {
    /// The upload a connection's latest request carries, as its head says (`UploadRequestFacts`).
    struct RequestUpload: Sendable {
        var method: HTTPMethod
        var target: String
        var facts: UploadRequestFacts
    }

    /// Learns from a request head: an append or offset retrieval that states the length tells it for its path.
    mutating func learn(from head: RequestHead, on id: Int) {
        let facts = UploadRequestFacts(head)
        connections[id]?.upload = RequestUpload(method: head.method, target: head.target, facts: facts)
        if head.method == .patch, let length = facts.length { uploadLengths.remember(length, for: facts.path) }
    }

    /// Learns from a response head to the connection's latest request: a creation's announced resource (a 104 or
    /// 2xx with `Location`) gets the length the creation stated; an `Upload-Length` (an offset retrieval's
    /// answer) is the length of the resource asked about.
    mutating func learn(from head: ResponseHead, on id: Int) {
        guard let upload = connections[id]?.upload else { return }
        let facts = UploadResponseFacts(head, requestVersion: upload.facts.version)
        let creates = upload.method == .post || upload.method == .put
        if creates, let path = facts.resourcePath, let length = facts.length ?? upload.facts.length {
            uploadLengths.remember(length, for: path)
        } else if !creates, let length = facts.length {
            uploadLengths.remember(length, for: upload.facts.path)
        }
    }

    /// The length to resolve percentages against on connection `id`: what the body event says, else what the
    /// engine learned for the request's resource.
    func uploadLength(on id: Int, stated: Int64?) -> Int64? {
        if let stated { return stated }
        guard let upload = connections[id]?.upload, upload.method == .patch else { return nil }
        return uploadLengths[upload.facts.path]
    }

    /// Why a percentage cannot resolve on connection `id`'s request.
    func unresolvedReason(numerator: Int64, denominator: Int64, on id: Int) -> String {
        let percent = UploadPosition.percentText(numerator: numerator, denominator: denominator)
        var text = "\(percent) of an upload whose length the proxy never learned"
        if let upload = connections[id]?.upload { text += " (\(upload.method) \(upload.target))" }
        return text
    }

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

    /// For the rules in `neverFired` that met a request they could not be placed in: why, by rule name.
    public var neverFiredReasons: [String: String] {
        var reasons: [String: String] = [:]
        for index in neverFiredIndices {
            if let reason = states[index].unresolved { reasons[rules[index].name] = reason }
        }
        return reasons
    }
}
