import HTTPWire
import ResumableUpload

extension ConnectionFaults {
    /// The upload a connection's latest request carries, as its head says (`UploadRequestFacts`).
    struct RequestUpload: Sendable {
        var method: HTTPMethod
        var target: String
        var facts: UploadRequestFacts
        /// The length the budget had learned for the resource, once asked (an append's percentages).
        var learnedLength: Int64?
    }

    /// Learns from a request head: an append or offset retrieval that states the length tells it for its path.
    mutating func learn(from head: RequestHead, budget: inout FaultBudget) {
        let facts = UploadRequestFacts(head)
        upload = RequestUpload(method: head.method, target: head.target, facts: facts)
        if head.method == .patch, let length = facts.length { budget.uploadLengths.remember(length, for: facts.path) }
    }

    /// Learns from a response head to the connection's latest request: a creation's announced resource (a 104 or
    /// 2xx with `Location`) gets the length the creation stated; an `Upload-Length` (an offset retrieval's
    /// answer) is the length of the resource asked about.
    func learn(from head: ResponseHead, budget: inout FaultBudget) {
        guard let upload else { return }
        let facts = UploadResponseFacts(head, requestVersion: upload.facts.version)
        let creates = upload.method == .post || upload.method == .put
        if creates, let path = facts.resourcePath, let length = facts.length ?? upload.facts.length {
            budget.uploadLengths.remember(length, for: path)
        } else if !creates, let length = facts.length {
            budget.uploadLengths.remember(length, for: upload.facts.path)
        }
    }

    /// The length to resolve percentages against: what the body event says, else what the budget learned for
    /// the request's resource (kept for the request's next chunks once known).
    mutating func uploadLength(stated: Int64?, budget: FaultBudget) -> Int64? {
        if let stated { return stated }
        guard let upload, upload.method == .patch else { return nil }
        if let learned = upload.learnedLength { return learned }
        self.upload?.learnedLength = budget.uploadLengths[upload.facts.path]
        return self.upload?.learnedLength
    }

    /// Why a percentage cannot resolve on the connection's request.
    func unresolvedReason(numerator: Int64, denominator: Int64) -> String {
        let percent = UploadPosition.percentText(numerator: numerator, denominator: denominator)
        var text = "\(percent) of an upload whose length the proxy never learned"
        if let upload { text += " (\(upload.method) \(upload.target))" }
        return text
    }
}
