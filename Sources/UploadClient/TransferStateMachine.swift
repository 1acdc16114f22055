import HTTPWire
import ResumableUpload

/// The decisions of one upload transfer (draft-ietf-httpbis-resumable-upload, interop 3 … 8, or a plain upload):
/// a value type, inputs in, actions out. `UploadTransfer` executes the actions over sockets; tests drive it
/// directly.
///
/// ```
///  start ──▶ creation ──2xx, completes──────────────────────────────────────▶ succeeded
///    └─ with a resume location: HEAD on it ─▶ offset check ─▶ append … (404/410: creation from byte 0)
///              │  ├─2xx, partial (Location) ─▶ append (PATCH) ─┬─2xx, completes ▶ succeeded
///              │  │                              ▲   │         └─2xx, partial ─┐
///              │  │                              │   └──409─▶ (offset check) ──┤
///              │  │                              └──────────────────────────────┘
///              │  ├─404/410, nothing acknowledged yet (the server lost the upload) ─▶ creation from byte 0
///              │  └─401/403 ▶ userAuthenticationRequired; other status ▶ badServerResponse
///              └─connection lost ─┬─ no 104 seen ──────────────────────────────▶ failed (transient)
///                                 └─ 104 seen: backoff ─▶ HEAD ─▶ offset check ─▶ append …
///                                      (at most maximumResumeAttempts, then failed with the transient error)
///  HEAD refused, reset or timed out (or answered 5xx) ─▶ one more attempt: backoff ─▶ HEAD …
///  offset check: offset > bytes ever sent, or < an offset the server acknowledged before ─▶ DELETE ─▶ failed
///  cancel ─▶ HEAD (when there is an upload resource) ─▶ cancelled with the server's state
/// ```
///
/// Only transient connection failures (`TransferError.isTransient`) are resumed; a malformed response or a TLS
/// failure ends the transfer. A 104 counts only when it carries the transfer's own interop version (§1.4).
///
/// Resume attempts: every interruption once an upload resource is known (a creation or append cut, a HEAD whose
/// connection is refused, reset or times out, a 5xx to the HEAD, a 409 to an append) spends one of
/// `maximumResumeAttempts`; all but the 409 wait `configuration.backoff(beforeAttempt:)` first, so a server that
/// restarts (refusing connections for a moment) is waited for, not raced. Without an upload resource (the
/// creation's connection refused before any 104) the transfer fails at once: the job's failure, which the system
/// retries after its own backoff.
public struct TransferStateMachine: Sendable {
    /// What happened, fed by the driver.
    public enum Input: Sendable, Hashable {
        /// Begin: send the creation.
        case start
        /// An interim (1xx) response to the request in flight.
        case interim(ResponseHead)
        /// `count` more content bytes of the request in flight were written.
        case bodySent(Int)
        /// The final response to the request in flight (its content read or discarded).
        case response(ResponseHead)
        /// The request in flight failed before its final response.
        case failed(TransferError)
        /// The request in flight was not processed by the server (an HTTP/2 stream refused) and is being sent again
        /// as it was: its content is counted from its start once more.
        case resending
        /// The backoff delay asked for has passed.
        case backoffElapsed
        /// The owner cancelled; the request in flight (if any) was aborted.
        case cancelled
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Hashable {
        /// Tell the observer.
        case report(TransferEvent)
        /// Send this request (on a reused or new connection) and feed what happens.
        case send(TransferRequest)
        /// Wait this long, then feed `backoffElapsed`; a cancellation may come first.
        case backoff(Duration)
        /// The transfer is over; abort any request still in flight.
        case finish(TransferOutcome)
    }

    /// Where the transfer is; each case says where it can go next.
    enum Phase: Sendable, Hashable {
        /// Before `start`; then `sending` (the creation).
        case idle
        /// A creation or append is out; then `sending` (the next part, or a re-sync after 409), `waitingToResume`
        /// or `retrieving` (interrupted after a 104), `deleting` (impossible offset) or `finished`.
        case sending(TransferRequest)
        /// Backing off before a resume; then `retrieving`.
        case waitingToResume
        /// HEAD is out (on a resume location, after an interruption, or after a cancellation); then `sending` (the
        /// append, or the creation when a resume location is gone),
        /// `waitingToResume`, `deleting` or `finished`.
        case retrieving(afterCancel: Bool)
        /// DELETE is out, the outcome already decided; then `finished`.
        case deleting(TransferOutcome)
        /// Over: every later input is ignored.
        case finished
    }

    let url: HTTPURL
    let configuration: TransferConfiguration
    /// The interop version spoken, nil for a plain upload.
    public let version: InteropVersion?
    /// The file's length.
    public let total: Int64
    var phase = Phase.idle
    /// The limits the server announced last (preflight, 104, final response, HEAD).
    var limits: UploadLimits?
    /// The upload resource as first announced, and as a URL.
    public internal(set) var location: String?
    var locationURL: HTTPURL?
    /// Content bytes of the request in flight written so far.
    var sentInRequest: Int64 = 0
    /// The highest upload offset ever written.
    public internal(set) var highestSent: Int64 = 0
    /// The highest offset the server acknowledged (104 progress, final `Upload-Offset`, HEAD).
    public internal(set) var acknowledged: Int64 = 0
    public internal(set) var resumeAttempts = 0
    /// The transfer started from a resume location whose HEAD has not answered with an offset yet: a 404 or 410
    /// then means the server forgot the upload.
    public internal(set) var reconciling = false

    /// A transfer of `total` bytes to `url`; `preflight` nil means none was made (plain uploads skip it).
    public init(url: HTTPURL, total: Int64, configuration: TransferConfiguration, preflight: PreflightResult?) {
        self.url = url
        self.total = total
        self.configuration = configuration
        self.version = preflight == .notResumable ? nil : configuration.interopVersion
        self.limits = preflight?.limits
    }

    /// Whether the machine has finished.
    public var isFinished: Bool { phase == .finished }

    /// Feeds one input and returns the actions it causes.
    public mutating func handle(_ input: Input) -> [Action] {
        switch (input, phase) {
        case (_, .finished):
            return []
        case (.start, .idle):
            return start()
        case (.interim(let head), .sending(let request)):
            return interim(head, request)
        case (.bodySent(let count), .sending(let request)):
            return bodySent(count, request)
        case (.resending, _):
            sentInRequest = 0
            return []
        case (.response(let head), _):
            return response(head)
        case (.failed(let error), _):
            return failed(error)
        case (.backoffElapsed, .waitingToResume):
            phase = .retrieving(afterCancel: false)
            return [.report(.resumeAttempt(resumeAttempts))] + send(offsetRetrieval())
        case (.cancelled, .retrieving(afterCancel: true)), (.cancelled, .deleting):
            return []
        case (.cancelled, _):
            guard version != nil, locationURL != nil else { return finish(.cancelled) }
            phase = .retrieving(afterCancel: true)
            return send(offsetRetrieval())
        default:
            return []
        }
    }

    // MARK: requests

    /// The most content bytes per request: the caller's append size, lowered to the server's `max-append-size`
    /// and raised to its `min-append-size` (resumable uploads only), at least 1.
    var requestSizeLimit: Int64 {
        guard version != nil else { return Int64.max }
        var limit = configuration.appendSize ?? Int64.max
        if let maximum = limits?.maxAppendSize { limit = min(limit, maximum) }
        if let minimum = limits?.minAppendSize { limit = max(limit, minimum) }
        return max(limit, 1)
    }

    func creation() -> TransferRequest {
        TransferRequest.creation(
            url: url, method: configuration.method, fields: configuration.headerFields, version: version,
            length: min(total, requestSizeLimit), total: total)
    }

    func append(from offset: Int64, to resource: HTTPURL, version: InteropVersion) -> TransferRequest {
        TransferRequest.append(
            url: resource, fields: configuration.headerFields, version: version, offset: offset,
            length: min(total - offset, requestSizeLimit), total: total)
    }

    func offsetRetrieval() -> TransferRequest {
        TransferRequest.onResource(
            .offsetRetrieval, url: locationURL!, fields: configuration.headerFields, version: version!)
    }

    mutating func send(_ request: TransferRequest) -> [Action] {
        if request.kind == .creation || request.kind == .append { phase = .sending(request) }
        sentInRequest = 0
        var actions: [Action] = [
            .report(
                .requestStarted(method: request.head.method.rawValue, offset: request.offset, length: request.length)),
            .send(request),
        ]
        if request.length == 0 && request.completes && request.kind != .offsetRetrieval {
            actions.append(.report(.finalising))
        }
        return actions
    }

    // MARK: progress

    /// A 104 to the request in flight: the announcement (its `Location`, its limits) or a progress report. A
    /// creation's first 104 without `Location` (the client could never resume) and an offset beyond the bytes
    /// sent (the server acknowledges bytes it never got) are impossible server states: the upload fails with
    /// `badServerResponse` naming the rule.
    mutating func interim(_ head: ResponseHead, _ request: TransferRequest) -> [Action] {
        guard head.status == 104, let version, version.isEchoed(in: head.fields) else { return [] }
        let announced = head.fields["Location"]
        if announced == nil, request.kind == .creation, location == nil {
            return fail(Self.impossible(.missingLocation, "the creation's first 104 carries no Location"), head: head)
        }
        if let announced, let failure = adopt(location: announced) { return fail(failure, head: head) }
        if let field = head.fields[UploadLimits.fieldName],
            let parsed = try? UploadLimits(field: field, version: version)
        {
            limits = parsed
        }
        let offset = offset(head)
        if let offset, offset > highestSent {
            return failAndDelete(
                Self.impossible(
                    .offsetBeyondData, "a 104 reports offset \(offset) but only \(highestSent) bytes were sent"),
                head: head)
        }
        if let offset { acknowledged = max(acknowledged, offset) }
        return [.report(.interimReceived(location: announced, offset: offset))]
    }

    /// A server state no conforming server can be in, as a `badServerResponse` naming the `ServerConformance` rule
    /// it breaks (`location-changed: Location changed from … to …`).
    static func impossible(_ rule: ConformanceDeviation.Rule, _ detail: String) -> TransferError {
        TransferError(.badServerResponse, "\(rule.rawValue): \(detail)")
    }

    mutating func bodySent(_ count: Int, _ request: TransferRequest) -> [Action] {
        let start = request.offset + sentInRequest
        sentInRequest += Int64(count)
        highestSent = max(highestSent, request.offset + sentInRequest)
        var actions: [Action] = [.report(.bytesSent(offset: start, count: count))]
        if sentInRequest == request.length && request.completes { actions.append(.report(.finalising)) }
        return actions
    }

    /// Records the announced `Location`; an error when it differs from the first one (-10: all responses for one
    /// upload carry the identical value; clients check it).
    mutating func adopt(location announced: String) -> TransferError? {
        if let location {
            guard location == announced else {
                return Self.impossible(.locationChanged, "Location changed from \(location) to \(announced)")
            }
            return nil
        }
        do {
            locationURL = try url.resolving(announced)
            location = announced
            return nil
        } catch {
            return TransferError(.badServerResponse, "unusable Location '\(announced)': \(error.detail)")
        }
    }

    // MARK: endings

    /// The request in flight (or its connection) failed: a transient failure once an upload resource is known is
    /// one more resume attempt, whether it cut a creation or append or the HEAD of an earlier attempt.
    mutating func failed(_ error: TransferError) -> [Action] {
        switch phase {
        case .sending, .retrieving(afterCancel: false):
            guard error.isTransient, version != nil, locationURL != nil else { return fail(error) }
            return scheduleResume(after: error)
        case .retrieving(afterCancel: true):
            return finish(.cancelled)
        case .deleting(let outcome):
            phase = .finished
            return [.finish(outcome)]
        default:
            return []
        }
    }

    mutating func scheduleResume(after error: TransferError, head: ResponseHead? = nil) -> [Action] {
        guard resumeAttempts < configuration.maximumResumeAttempts else { return fail(error, head: head) }
        resumeAttempts += 1
        let interrupted = Action.report(.interrupted(at: highestSent, error))
        let delay = configuration.backoff(beforeAttempt: resumeAttempts)
        guard delay > .zero else {
            phase = .retrieving(afterCancel: false)
            return [interrupted, .report(.resumeAttempt(resumeAttempts))] + send(offsetRetrieval())
        }
        phase = .waitingToResume
        return [interrupted, .backoff(delay)]
    }

    mutating func fail(_ error: TransferError, head: ResponseHead? = nil) -> [Action] {
        finish(.failed(error), head: head)
    }

    mutating func finish(_ result: TransferOutcome.Result, head: ResponseHead? = nil) -> [Action] {
        phase = .finished
        return [.finish(outcome(result, head: head))]
    }

    /// Fails the upload and cancels its resource with DELETE (the upload cannot go on: §3.4).
    mutating func failAndDelete(_ error: TransferError, head: ResponseHead) -> [Action] {
        guard let location, version != nil, locationURL != nil else { return fail(error, head: head) }
        phase = .deleting(outcome(.failed(error), head: head))
        let request = TransferRequest.onResource(
            .cancellation, url: locationURL!, fields: configuration.headerFields, version: version!)
        return [.report(.deleteSent(location: location))] + send(request)
    }

    func outcome(_ result: TransferOutcome.Result, head: ResponseHead?) -> TransferOutcome {
        var fields: [String: String] = [:]
        for field in head?.fields ?? [:] {
            let name = field.name.lowercased()
            fields[name] = fields[name].map { $0 + ", " + field.value } ?? field.value
        }
        return TransferOutcome(
            result: result, status: head?.status, headerFields: fields, location: location,
            resumeAttempts: resumeAttempts, resumable: version != nil)
    }
}
