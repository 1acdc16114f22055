/// The server-side state of one upload resource (draft-ietf-httpbis-resumable-upload, interop 3 … 10): events in,
/// `UploadAction`s out; no I/O, time is an input (`now`: the time since 1970 on the caller's clock, fine enough
/// for `progressSpacing`; `max-age` counts in whole seconds of it).
///
/// ```
///   create ──▶ receiving ──bodyEnded (completing request)──▶ complete
///   receiving ──bodyEnded (partial) / bodyInterrupted / a limit hit──▶ idle
///   idle ──startAppend (offset matches)──▶ receiving
///   any ──cancel (DELETE), expiry, or (interop 9+) an append passing the known length──▶ cancelled: HEAD, PATCH
///   and DELETE then get 404
/// ```
///
/// The offset counts the bytes actually received and written, in order: an interrupted body keeps them all
/// (§3.10). Limits are enforced on declared lengths when a request starts and on the bytes actually read
/// (`max-append-size`, `max-size`, a known length), never trusting `Content-Length` alone (§9). Progress 104s follow
/// the configuration's progress policy: an interval in bytes, a limit per request, a spacing in time.
public struct UploadResourceStateMachine: Sendable, Hashable {
    /// A creation or append whose body is being read.
    struct ActiveRequest: Sendable, Hashable {
        var version: InteropVersion
        var isCreation: Bool
        var complete: Bool
        var received: Int64 = 0
        /// The offset of the last progress 104, or where the request started.
        var lastProgress: Int64
        /// When the last progress 104 went out, or when the request started.
        var lastProgressAt: Duration
        /// Progress 104s sent on this request.
        var progressSent = 0
        /// The offset where the request's content starts.
        var start: Int64
        /// What `Content-Digest` says the content hashes to. When set, the content counts all or nothing: no
        /// progress 104 promises part of it, and a body that does not end matching it is cut back to `start`.
        var contentDigests: Digests
        /// The algorithm `Want-Repr-Digest` asked for, to state in the completing response.
        var wantedRepresentation: DigestAlgorithm?

        init(
            version: InteropVersion, isCreation: Bool, complete: Bool, start: Int64, now: Duration,
            digests: RequestDigests
        ) {
            self.version = version
            self.isCreation = isCreation
            self.complete = complete
            self.start = start
            self.lastProgress = start
            self.lastProgressAt = now
            self.contentDigests = digests.content
            self.wantedRepresentation = digests.wantedRepresentation
        }

        /// Whether the content is kept only once it matches its `Content-Digest`.
        var isAllOrNothing: Bool { !contentDigests.isEmpty }
    }

    /// The upload's id: the last segment of its path, and `x-server-resource-id` once complete.
    public let id: String
    /// The upload resource's URL, as sent in `Location`.
    public let location: String
    public let configuration: UploadProtocolConfiguration
    /// Bytes received in order and written.
    public internal(set) var offset: Int64 = 0
    /// The upload's length once a request stated it (`Upload-Length`, or `Content-Length` with completion).
    public internal(set) var length: Int64?
    public internal(set) var isComplete = false
    /// Whether the resource is gone: cancelled by DELETE or expired (`max-age`).
    public internal(set) var isCancelled = false
    /// When the resource expires, from `limits.maxAge` at creation.
    public let expiresAt: Duration?
    /// What the client's `Repr-Digest` (on the creation or a later append) says the complete upload hashes to.
    public internal(set) var representationDigests: Digests = [:]
    var active: ActiveRequest?

    /// Whether a creation or append body is being read.
    public var isReceiving: Bool { active != nil }

    /// The algorithms whose digest of the running request's content `bodyEnded` needs.
    public var contentAlgorithms: [DigestAlgorithm] {
        DigestAlgorithm.allCases.filter { active?.contentDigests[$0] != nil }
    }

    /// The algorithms whose digest of the whole upload `bodyEnded` needs: on a completing request, those of the
    /// stated `Repr-Digest` and the one `Want-Repr-Digest` asked for.
    public var representationAlgorithms: [DigestAlgorithm] {
        guard let active, active.complete else { return [] }
        return DigestAlgorithm.allCases.filter {
            representationDigests[$0] != nil || active.wantedRepresentation == $0
        }
    }

    private init(id: String, location: String, configuration: UploadProtocolConfiguration, now: Duration) {
        self.id = id
        self.location = location
        self.configuration = configuration
        self.expiresAt = configuration.limits.maxAge.map { now + .seconds($0) }
    }

    /// Accepts a creation and starts reading its body: the first action is the 104 announcing `location`, to
    /// send before the body is read. Throws, creating nothing, when the declared length passes `max-size` or the
    /// content breaks the append-size limits (413, 400).
    public static func create(
        id: String, location: String, request: CreationRequest, configuration: UploadProtocolConfiguration,
        now: Duration
    ) throws(UploadProtocolError) -> (machine: UploadResourceStateMachine, actions: [UploadAction]) {
        var machine = UploadResourceStateMachine(id: id, location: location, configuration: configuration, now: now)
        try machine.checkLimits(
            end: request.declaredLength, content: request.contentLength, request.complete, version: request.version,
            isCreation: true)
        machine.length = request.declaredLength
        machine.representationDigests = request.digests.representation
        machine.active = ActiveRequest(
            version: request.version, isCreation: true, complete: request.complete, start: 0, now: now,
            digests: request.digests)
        let interim = UploadResponse.interim104(
            location: location, version: request.version, limits: machine.limits(now: now))
        return (machine, [.sendInterim(interim)])
    }

    /// The idle machine of an upload an earlier run left in durable storage: `offset` bytes received, the length
    /// if one was stated, complete or not, created at `createdAt` (so `max-age` still counts from then). Nil when
    /// the facts contradict each other (a length below the offset, a complete upload whose length is not its
    /// offset), so that a damaged record is never served as if it were sound.
    public static func restore(
        id: String, location: String, offset: Int64, length: Int64?, complete: Bool, createdAt: Duration,
        configuration: UploadProtocolConfiguration
    ) -> UploadResourceStateMachine? {
        guard offset >= 0, length.map({ $0 >= offset }) ?? true, !complete || (length ?? offset) == offset else {
            return nil
        }
        var machine = UploadResourceStateMachine(
            id: id, location: location, configuration: configuration, now: createdAt)
        machine.offset = offset
        machine.length = complete ? offset : length
        machine.isComplete = complete
        return machine
    }

    /// Starts an append (PATCH): checks that the resource exists, that the upload is not complete, the offset,
    /// length consistency and limits; on success returns no action and reads the body. A request still running on
    /// the resource is aborted first, keeping its bytes.
    public mutating func startAppend(_ request: AppendRequest, now: Duration) -> [UploadAction] {
        var actions = takeOver(now: now)
        if let error = appendError(request) {
            actions.append(
                .reject(error, rejection(error, request.version, now: now, empty: request.contentLength == 0)))
            if request.contentLength != 0 { actions.append(.closeConnection) }
            return actions + invalidate(passingLength: error.passesLength, request.version)
        }
        length = request.declaredLength ?? length
        if !request.digests.representation.isEmpty { representationDigests = request.digests.representation }
        active = ActiveRequest(
            version: request.version, isCreation: false, complete: request.complete, start: offset, now: now,
            digests: request.digests)
        return actions
    }

    /// Offset retrieval (HEAD): the resource's offset, completion, length and limits; 404 once gone.
    public mutating func offsetRequested(version: InteropVersion, now: Duration) -> [UploadAction] {
        var actions = takeOver(now: now)
        if let error = goneError() {
            return actions + [.reject(error, rejection(error, version, now: now))]
        }
        var reported = offset
        if configuration.defectOffsetBeyondStored > 0, !isComplete {
            reported = min(offset + configuration.defectOffsetBeyondStored, length ?? .max)
        }
        let response = UploadResponse.offsetRetrieval(
            version: version, offset: reported, complete: isComplete, length: length, limits: limits(now: now),
            preferredStatus: configuration.headStatus, resourceID: id)
        actions.append(.send(response))
        return actions
    }

    /// Cancellation (DELETE): aborts a running request, discards the data, 204; later requests get 404.
    public mutating func cancel(version: InteropVersion, now: Duration) -> [UploadAction] {
        let actions = takeOver(now: now)
        if let error = goneError() {
            return actions + [.reject(error, rejection(error, version, now: now))]
        }
        isCancelled = true
        return actions + [.discard, .send(UploadResponse.cancelled(version: version))]
    }

    /// The configured limits with `max-age` counted down to `now`.
    public func limits(now: Duration) -> UploadLimits {
        configuration.limits.remaining(expiresAt: expiresAt, now: now)
    }

    /// Before a new request on the resource: abort a running one (keeping its bytes, unless they had a digest to
    /// match) and drop an expired upload.
    private mutating func takeOver(now: Duration) -> [UploadAction] {
        var actions: [UploadAction] = []
        if active != nil {
            let kept = stopReceiving()
            actions += [kept, .abortActiveRequest]
        }
        if !isCancelled, let expiresAt, now >= expiresAt {
            isCancelled = true
            actions.append(.discard)
        }
        return actions
    }

    /// Ends the running request with its body unfinished: every byte received stays (§3.10), except for content
    /// with a `Content-Digest`, which could not be checked and is cut back to where the request started.
    mutating func stopReceiving() -> UploadAction {
        guard let request = active else { return .persist(offset: offset) }
        active = nil
        guard request.isAllOrNothing else { return .persist(offset: offset) }
        offset = request.start
        return .rewind(to: offset)
    }

    private func goneError() -> UploadProtocolError? {
        isCancelled ? UploadProtocolError(.unknownUpload, "upload \(id) was cancelled or has expired") : nil
    }

    private func appendError(_ request: AppendRequest) -> UploadProtocolError? {
        if let error = goneError() { return error }
        if isComplete { return UploadProtocolError(.completedUpload, "upload \(id) is already complete") }
        guard request.offset == offset else {
            return UploadProtocolError(
                .mismatchingOffset, "the upload is at \(offset), the request at \(request.offset)",
                field: UploadFields.offset, expectedOffset: offset, providedOffset: request.offset)
        }
        let end = request.declaredLength ?? length
        do {
            try checkLimits(
                end: end, content: request.contentLength, request.complete, version: request.version, isCreation: false)
        } catch {
            return error
        }
        return nil
    }

    /// Checks a request's declared lengths: against the known length, the offset, `max-size` and the append-size
    /// limits (`min-append-size` spares completing requests and empty ones, from interop 9 empty creations only). From interop 9 a request too large for
    /// `max-append-size` gets its 413 first: the one answer a client can recover from (-12 §4.7) by sending less.
    func checkLimits(
        end: Int64?, content: Int64?, _ complete: Bool, version: InteropVersion, isCreation: Bool
    ) throws(UploadProtocolError) {
        let limits = configuration.limits
        if let end, let length, end != length {
            throw UploadProtocolError(.inconsistentLength, "the upload's length is \(length), not \(end)")
        }
        if version.rejectsTooLargeAppendFirst, let content, let maxAppend = limits.maxAppendSize, content > maxAppend {
            throw UploadProtocolError(.appendTooLarge, "\(content) bytes pass max-append-size \(maxAppend)")
        }
        if let content, let end, offset + content > end {
            throw UploadProtocolError(
                .inconsistentLength, "\(content) bytes at \(offset) pass the length \(end)", passesLength: true)
        }
        if let maxSize = limits.maxSize, let end = end ?? content.map({ offset + $0 }), end > maxSize {
            throw UploadProtocolError(.uploadTooLarge, "\(end) bytes pass max-size \(maxSize)")
        }
        if let content, let maxAppend = limits.maxAppendSize, content > maxAppend {
            throw UploadProtocolError(.appendTooLarge, "\(content) bytes pass max-append-size \(maxAppend)")
        }
        let spared = content == 0 && (isCreation || !version.minAppendSizeSparesOnlyEmptyCreations)
        if let content, let minAppend = limits.minAppendSize, !complete, !spared, content < minAppend {
            throw UploadProtocolError(.appendTooSmall, "\(content) bytes are below min-append-size \(minAppend)")
        }
    }

    func rejection(_ error: UploadProtocolError, _ version: InteropVersion, now: Duration, empty: Bool = false)
        -> UploadResponse
    {
        UploadResponse.rejection(error, version: version, limits: limits(now: now), emptyContent: empty)
    }
}
