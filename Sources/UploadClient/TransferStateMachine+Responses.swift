import HTTPWire
import ResumableUpload
import StructuredFields

extension TransferStateMachine {
    /// A final response to the request in flight.
    mutating func response(_ head: ResponseHead) -> [Action] {
        switch phase {
        case .sending(let request):
            let report = Action.report(.finalResponse(method: request.head.method.rawValue, status: head.status))
            return [report] + uploadResponse(head, request)
        case .retrieving(let afterCancel):
            let report = Action.report(.finalResponse(method: "HEAD", status: head.status))
            return [report] + offsetResponse(head, afterCancel: afterCancel)
        case .deleting(let outcome):
            phase = .finished
            return [.report(.finalResponse(method: "DELETE", status: head.status)), .finish(outcome)]
        default:
            return []
        }
    }

    /// The final response to a creation or append decides (§3.2, §3.5): 2xx completes the upload or, for a part,
    /// goes on from the acknowledged offset; 409 to an append re-syncs to the server's offset; 401/403 need new
    /// credentials; anything else is a bad server response. A final response not flagged complete must repeat
    /// the announced `Location` (one flagged complete may carry the target resource's own).
    mutating func uploadResponse(_ head: ResponseHead, _ request: TransferRequest) -> [Action] {
        let success = (200...299).contains(head.status)
        if let version, success, let announced = head.fields["Location"], completion(head, version) != true,
            let failure = adopt(location: announced)
        {
            return fail(failure, head: head)
        }
        if let version, success, completion(head, version) == true, let failure = completeBelowLength(head, request) {
            return failAndDelete(failure, head: head)
        }
        switch head.status {
        case 200...299 where request.completes || version == nil:
            return finish(.succeeded, head: head)
        case 200...299:
            guard locationURL != nil else {
                return fail(
                    TransferError(.badServerResponse, "a partial upload was accepted without a Location"), head: head)
            }
            updateLimits(head)
            return continueUpload(from: offset(head) ?? request.offset + request.length, head: head)
        case 401, 403:
            return fail(TransferError(.userAuthenticationRequired, "the server answered \(head.status)"), head: head)
        case 413 where version != nil:
            return retryWithinLimits(head, request)
        case 409 where request.kind == .append && offset(head) != nil:
            guard resumeAttempts < configuration.maximumResumeAttempts else {
                return fail(
                    TransferError(.badServerResponse, "409 after \(resumeAttempts) resume attempts"), head: head)
            }
            resumeAttempts += 1
            return [.report(.resumeAttempt(resumeAttempts))] + continueUpload(from: offset(head)!, head: head)
        default:
            return fail(TransferError(.badServerResponse, "the server answered \(head.status)"), head: head)
        }
    }

    /// The answer to HEAD (§3.4, §3.10): complete → done (the final response was lost); else append from its
    /// offset; a 5xx is one more resume attempt (HEAD is safe and retried on 5xx, §3.11: a gateway answers 502 while
    /// the server restarts). After a cancellation, the answer is only reported; otherwise 404 or 410 start over when
    /// nothing of the upload was acknowledged: the server no longer has it (a resume location it forgot, or one it
    /// announced and lost in a crash before its store had it, which the draft allows). Once the server acknowledged
    /// an offset, a 404 is acknowledged bytes lost: the transfer fails (`badServerResponse`) rather than hide it.
    mutating func offsetResponse(_ head: ResponseHead, afterCancel: Bool) -> [Action] {
        let version = version!
        if !afterCancel, head.status == 404 || head.status == 410, reconciling || acknowledged == 0 {
            return restartFromZero()
        }
        if reconciling && !afterCancel, (200...299).contains(head.status), let offset = offset(head) {
            confirmReconciliation(offset: offset)
        }
        guard (200...299).contains(head.status), let offset = offset(head) else {
            if afterCancel { return finish(.cancelled, head: head) }
            if head.status == 401 || head.status == 403 {
                return fail(TransferError(.userAuthenticationRequired, "HEAD answered \(head.status)"), head: head)
            }
            if (500...599).contains(head.status) {
                return scheduleResume(
                    after: TransferError(.badServerResponse, "HEAD answered \(head.status)"), head: head)
            }
            return fail(TransferError(.badServerResponse, "HEAD answered \(head.status) without an offset"), head: head)
        }
        let complete = completion(head, version) ?? false
        if afterCancel {
            phase = .finished
            var outcome = outcome(.cancelled, head: head)
            outcome.serverState = ServerUploadState(offset: offset, complete: complete)
            return [.finish(outcome)]
        }
        updateLimits(head)
        if complete, offset < total {
            return fail(
                Self.impossible(
                    .completeBelowLength,
                    "HEAD says the upload is complete at offset \(offset), below its length \(total)"),
                head: head)
        }
        guard !complete else {
            phase = .finished
            var outcome = outcome(.succeeded, head: head)
            outcome.completionConfirmedByOffsetRetrieval = true
            return [.finish(outcome)]
        }
        return continueUpload(from: offset, head: head)
    }

    /// Appends from the server's `offset` after checking it: more than was ever sent (or than the file holds) is
    /// impossible, and so is less than an offset the server acknowledged before (offsets never decrease, §2);
    /// both fail the upload and DELETE it. Less than was sent is a backtrack: the bytes are sent again.
    mutating func continueUpload(from offset: Int64, head: ResponseHead) -> [Action] {
        if offset > highestSent || offset > total {
            let detail = "the server reports offset \(offset) but only \(highestSent) bytes were sent"
            return failAndDelete(Self.impossible(.offsetBeyondData, detail), head: head)
        }
        if offset < acknowledged {
            let detail = "the server's offset went back from \(acknowledged) to \(offset)"
            return failAndDelete(Self.impossible(.offsetDecreased, detail), head: head)
        }
        var actions: [Action] = []
        if offset < highestSent { actions.append(.report(.backtrack(from: highestSent, to: offset))) }
        acknowledged = offset
        // The negative control's defect: the append starts over instead of at the server's offset.
        let start = configuration.resumesFromZero ? 0 : offset
        return actions + send(append(from: start, to: locationURL!, version: version!))
    }

    /// A 413 to a creation or append (-12 §4.1.4, #3312): when its `Upload-Limit` allows less content than the
    /// request carried, the request is sent again within the limits: a creation that announced nothing as a smaller
    /// creation, else an append from the offset the server reports (HEAD first: a 413 may come after some bytes).
    /// A 413 that allows no less than was sent, or one too many, fails the upload as before.
    mutating func retryWithinLimits(_ head: ResponseHead, _ request: TransferRequest) -> [Action] {
        let refused = TransferError(.badServerResponse, "the server answered 413")
        updateLimits(head)
        guard requestSizeLimit < request.length, resumeAttempts < configuration.maximumResumeAttempts else {
            return fail(refused, head: head)
        }
        resumeAttempts += 1
        var actions: [Action] = [.report(.resumeAttempt(resumeAttempts))]
        if locationURL == nil {
            guard request.kind == .creation else { return fail(refused, head: head) }
            actions += send(creation())
        } else {
            phase = .retrieving(afterCancel: false)
            actions += send(offsetRetrieval())
        }
        return actions
    }

    /// A successful answer flagged complete is impossible when the upload cannot be: the request did not reach the
    /// file's length (which the client declared with `Upload-Length` from interop 6, or will declare by completing),
    /// or the answer's own offset is below it. Taking it as success would record an upload the server holds only
    /// part of.
    func completeBelowLength(_ head: ResponseHead, _ request: TransferRequest) -> TransferError? {
        let end = offset(head) ?? request.offset + request.length
        guard end < total else { return nil }
        return Self.impossible(
            .completeBelowLength,
            "a \(head.status) says the upload is complete at offset \(end), below its length \(total)")
    }

    mutating func updateLimits(_ head: ResponseHead) {
        guard let version, let field = head.fields[UploadLimits.fieldName],
            let parsed = try? UploadLimits(field: field, version: version)
        else { return }
        limits = parsed
    }

    /// `Upload-Offset`, a non-negative sf-Integer; nil when absent or malformed.
    func offset(_ head: ResponseHead) -> Int64? {
        let lines = head.fields.values(for: "Upload-Offset")
        guard !lines.isEmpty, let value = (try? StructuredFieldParser.parseItem(lines: lines))?.integer, value >= 0
        else { return nil }
        return value
    }

    /// Whether the response says the upload is complete (`Upload-Complete: ?1`, interop 3 `Upload-Incomplete: ?0`);
    /// nil when the field is absent or not a Boolean.
    func completion(_ head: ResponseHead, _ version: InteropVersion) -> Bool? {
        let lines = head.fields.values(for: version.completionFieldName)
        guard !lines.isEmpty, let flag = (try? StructuredFieldParser.parseItem(lines: lines))?.boolean else {
            return nil
        }
        return flag != version.completionFieldIsInverted
    }
}
