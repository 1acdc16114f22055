extension UploadResourceStateMachine {
    /// `byteCount` bytes of the running request's body arrived at `now`: write those within the limits, advance the
    /// offset, and send a progress 104 (with the offset persisted first) when the progress policy says one is due
    /// (`progressDue`). Bytes past `max-append-size`, `max-size` or the known length are not written: the request is
    /// rejected (413, or 400 for the length) and its connection closed, keeping the bytes before the limit.
    public mutating func bodyReceived(byteCount: Int64, now: Duration) throws(UploadStateError) -> [UploadAction] {
        guard var request = active else { throw UploadStateError(.noActiveRequest, "body bytes with no request") }
        var actions: [UploadAction] = []
        let limit = tightestLimit(request)
        let accepted = min(byteCount, limit?.room ?? byteCount)
        if accepted > 0 {
            actions.append(.write(count: accepted))
            offset += accepted
            request.received += accepted
        }
        if accepted < byteCount, let limit {
            active = request
            let response = rejection(limit.error, request.version, now: now)
            actions += [stopReceiving(), .reject(limit.error, response), .closeConnection]
            return actions + invalidate(passingLength: limit.error.passesLength, request.version)
        }
        if progressDue(request, now: now) {
            request.lastProgress = offset
            request.lastProgressAt = now
            request.progressSent += 1
            actions += [
                .persist(offset: offset),
                .sendInterim(UploadResponse.progress104(offset: offset, version: request.version)),
            ]
        }
        active = request
        return actions
    }

    /// The running request's body ended. `content` holds the digests of its content for `contentAlgorithms`, and
    /// `representation` those of the whole upload for `representationAlgorithms` (RFC 9530).
    ///
    /// - Content that does not match its `Content-Digest` is cut back and rejected (400): the upload is as before.
    /// - A completing request completes the upload (its length is then the offset; 400 if a known length was not
    ///   reached) and gets `x-server-resource-id`, and `Repr-Digest` when `Want-Repr-Digest` asked for it. An upload
    ///   that does not match its client's `Repr-Digest` failed: rejected (400) and discarded.
    /// - A partial one leaves it incomplete.
    ///
    /// Either way the offset is persisted before the final response.
    public mutating func bodyEnded(
        now: Duration, content: Digests = [:], representation: Digests = [:]
    ) throws(UploadStateError) -> [UploadAction] {
        guard let request = active else { throw UploadStateError(.noActiveRequest, "body end with no request") }
        if let algorithm = RequestDigests.mismatch(stated: request.contentDigests, computed: content) {
            let error = UploadProtocolError(
                .contentDigestMismatch,
                "the content does not match its Content-Digest \(algorithm.rawValue); nothing of it was appended",
                field: RequestDigests.contentField)
            return [stopReceiving(), .reject(error, rejection(error, request.version, now: now))]
        }
        active = nil
        var actions: [UploadAction] = [.persist(offset: offset)]
        var response = finalResponse(request, now: now)
        if request.complete {
            if let length, length != offset {
                let error = UploadProtocolError(
                    .inconsistentLength, "the body ended at \(offset), the upload's length is \(length)")
                return actions + [.reject(error, rejection(error, request.version, now: now))]
            }
            if let algorithm = RequestDigests.mismatch(stated: representationDigests, computed: representation) {
                let error = UploadProtocolError(
                    .representationDigestMismatch,
                    "the upload does not match its Repr-Digest \(algorithm.rawValue); it failed and was discarded",
                    field: RequestDigests.representationField)
                isCancelled = true
                return actions + [.reject(error, rejection(error, request.version, now: now)), .discard]
            }
            isComplete = true
            length = offset
            actions.append(.finalize(length: offset))
            if let wanted = request.wantedRepresentation, let digest = representation[wanted] {
                response.head.fields.append(
                    name: RequestDigests.representationField, value: RequestDigests.field([wanted: digest]))
            }
        }
        actions.append(.send(response))
        return actions
    }

    /// The running request's body stopped early (reset, timeout): every byte received stays, the offset counts
    /// them, the upload stays incomplete and resumable (§3.10). Content with a `Content-Digest` is the exception:
    /// unchecked, it is cut back to where the request started.
    public mutating func bodyInterrupted() throws(UploadStateError) -> [UploadAction] {
        guard active != nil else { throw UploadStateError(.noActiveRequest, "interruption with no request") }
        return [stopReceiving()]
    }

    /// Whether `request` is due a progress 104 at `now` (interop 5+; never for content with a `Content-Digest`,
    /// which counts only once checked): `progressInterval` bytes since its last one
    /// (or its start), fewer than `progressLimit` sent, and `progressSpacing` passed since its last one (or its start).
    private func progressDue(_ request: ActiveRequest, now: Duration) -> Bool {
        let rules = configuration
        guard request.version.sendsProgress, !request.isAllOrNothing, rules.progressInterval > 0,
            offset - request.lastProgress >= rules.progressInterval
        else { return false }
        if let limit = rules.progressLimit, request.progressSent >= limit { return false }
        return rules.progressSpacing <= .zero || now - request.lastProgressAt >= rules.progressSpacing
    }

    private func finalResponse(_ request: ActiveRequest, now: Duration) -> UploadResponse {
        let limits = limits(now: now)
        if request.isCreation {
            return UploadResponse.creationFinal(
                version: request.version, location: location, offset: offset, complete: request.complete,
                limits: limits, resourceID: id)
        }
        return UploadResponse.appendFinal(
            version: request.version, offset: offset, complete: request.complete, limits: limits, resourceID: id)
    }

    /// The limit leaving the least room for more bytes of `request`, with the error passing it raises.
    private func tightestLimit(_ request: ActiveRequest) -> (room: Int64, error: UploadProtocolError)? {
        let limits = configuration.limits
        var candidates: [(room: Int64, error: UploadProtocolError)] = []
        if let length {
            candidates.append(
                (
                    length - offset,
                    UploadProtocolError(.inconsistentLength, "the body passes the length \(length)", passesLength: true)
                ))
        }
        if let maxSize = limits.maxSize {
            candidates.append(
                (maxSize - offset, UploadProtocolError(.uploadTooLarge, "the upload passes max-size \(maxSize)")))
        }
        if let maxAppend = limits.maxAppendSize {
            candidates.append(
                (
                    maxAppend - request.received,
                    UploadProtocolError(.appendTooLarge, "the body passes max-append-size \(maxAppend)")
                ))
        }
        return candidates.min { $0.room < $1.room }.map { (max(0, $0.room), $0.error) }
    }

    /// From interop 9 (-12 §4.4.2) an append that would take the offset past the known length invalidates the
    /// resource: it refuses any further interaction (later requests get 404) and its data is discarded.
    mutating func invalidate(passingLength: Bool, _ version: InteropVersion) -> [UploadAction] {
        guard passingLength, version.invalidatesOnLengthOverrun else { return [] }
        isCancelled = true
        return [.discard]
    }
}
