import Glibc
import HTTPExchange
import HTTPWire
import ResumableUpload
import SquallCore
import SquallNet
import TLSKit
import UploadStore

/// One connection of the upload server, run on its own thread: reads requests one after another (keep-alive),
/// classifies each with `UploadRequest.classify` and executes the state machine's actions. Under HTTP/2 it is one
/// stream of a connection (one request), on a thread of its own.
///
/// Malformed input gets its 4xx/5xx and the connection closes; the server goes on serving others.
final class UploadConnection {
    /// The principal of the request being served: `nil` when authentication is off, else the token's.
    var principal: String?

    let server: UploadServer
    /// The connection's number in the server log.
    let id: Int
    /// What carries the requests, as a request taking over an upload streaming on it sees it: the socket, or the
    /// HTTP/2 stream.
    let channel: any ExchangeChannel
    let reader: any HTTPServerExchange
    /// When the first request head must be whole: the head timeout counted from the accept.
    private let firstHeadDeadline: ContinuousClock.Instant
    /// Whether a request was read on this connection (later heads wait for the idle timeout, then the head timeout).
    private var served = false
    /// Whether the connection ends after the current request.
    var closing = false
    /// The method of the request being answered (a response to HEAD carries no content).
    private var method = HTTPMethod.get
    /// Whether the request being answered asked for `100 Continue` before sending its body, not yet sent.
    private var continueExpected = false
    /// Whether the request being answered is HTTP/1.0, which gets no informational response (RFC 9110 §15.2: no
    /// 104, no `100 Continue`).
    private var refusesInformational = false
    /// The algorithm of the `Content-Digest` the request being answered asked of the response content
    /// (`Want-Content-Digest`, RFC 9530 §4), if any.
    private var wantedContentDigest: DigestAlgorithm?
    /// The upload the request being served concerns, once known (for the log).
    var currentUpload: String?
    /// The body bytes read for the request being served (for the log).
    var bodyBytes: Int64 = 0

    init(
        server: UploadServer, id: Int, channel: any ExchangeChannel, reader: any HTTPServerExchange,
        firstHeadDeadline: ContinuousClock.Instant
    ) {
        self.server = server
        self.id = id
        self.channel = channel
        self.reader = reader
        self.firstHeadDeadline = firstHeadDeadline
    }

    var configuration: UploadServerConfiguration { server.configuration }
    var uploadProtocol: UploadProtocolConfiguration { configuration.uploadProtocol }

    /// Serves requests until the peer closes, a request asks to close, or an error ends the connection; then
    /// ends the exchange (HTTP/1.1: drains before closing, 1 MiB, 2 s).
    func run() {
        serveRequests()
        reader.finish()
    }

    private func serveRequests() {
        while !closing {
            let head: RequestHead?
            do {
                let limits = configuration.limits
                head =
                    served
                    ? try reader.nextHead(idleTimeout: limits.idleTimeout, headTimeout: limits.headTimeout)
                    : try reader.firstHead(by: firstHeadDeadline)
                served = true
            } catch {
                if error.code == .headTimeout {
                    let limit = DurationText.format(configuration.limits.headTimeout) ?? "its deadline"
                    return sendStatusAndClose(
                        408, "Request Timeout",
                        detail: "the request head did not arrive whole within \(limit) (--head-timeout)")
                }
                guard let wireError = error.wireError else { return }
                let (status, reason) = wireError.requestStatus
                return sendStatusAndClose(status, reason, detail: "malformed request: \(wireError.detail)")
            }
            guard let head else { return }
            logRequest(head)
            method = head.method
            refusesInformational = head.version == .http10
            continueExpected = head.fields["Expect"]?.lowercased() == "100-continue"
            wantedContentDigest = try? RequestDigests.preferred(RequestDigests.wantContentField, in: head.fields)
            closing = !head.keepAlive
            do {
                try handle(head)
            } catch is UploadStoreError {
                // The store failed (disk full, I/O error) before the final response: say so and close.
                return sendStatusAndClose(500, "Internal Server Error")
            } catch {
                return
            }
        }
    }

    private func handle(_ head: RequestHead) throws {
        if head.target.hasPrefix(Self.adminPrefix) { return try serveAdmin(head) }
        if server.tokens != nil {
            guard let principal = try authenticate(head) else { return }
            self.principal = principal
        }
        let request: UploadRequest
        do {
            request = try UploadRequest.classify(head, configuration: uploadProtocol)
        } catch {
            closeUnlessBodyless(head)
            let version = UploadRequest.servedVersion(head.fields, uploadProtocol.versions)
            return try send(UploadResponse.rejection(error, version: version, limits: uploadProtocol.limits))
        }
        switch request {
        case .options(let version):
            closeUnlessBodyless(head)
            try send(
                UploadResponse.options(
                    version: version, limits: uploadProtocol.limits, resumable: uploadProtocol.resumable))
        case .create(let creation):
            try create(creation, head)
        case .offset(let id, let version):
            try onResource(id, version, head) { machine, now in machine.offsetRequested(version: version, now: now) }
        case .cancel(let id, let version):
            try onResource(id, version, head) { machine, now in machine.cancel(version: version, now: now) }
        case .append(let id, let append):
            try self.append(append, to: id, head)
        case .plainUpload:
            try servePlain(head)
        }
    }

    /// HEAD or DELETE on an upload resource: one event of its machine, under its lock.
    private func onResource(
        _ id: String, _ version: InteropVersion, _ head: RequestHead,
        _ event: (inout UploadResourceStateMachine, Duration) -> [UploadAction]
    ) throws {
        closeUnlessBodyless(head)
        guard let slot = server.slot(id, for: principal) else { return try sendUnknownUpload(id, version) }
        slot.waitForClosedStream(besides: channel)
        let now = Self.now()
        let outcome = try slot.state.withLock { state in
            try apply(event(&state.machine, now), to: &state, id: id)
        }
        if outcome.close { closing = true }
        if let response = outcome.response { try send(response) }
    }

    func sendUnknownUpload(_ id: String, _ version: InteropVersion) throws {
        let error = UploadProtocolError(.unknownUpload, "no upload \(id)")
        try send(UploadResponse.rejection(error, version: version, limits: uploadProtocol.limits))
    }

    /// Closes the connection after this request unless it has no content (its unread body would be taken for
    /// the next request).
    func closeUnlessBodyless(_ head: RequestHead) {
        let length = head.fields["Content-Length"].flatMap { Int64($0) }
        if head.fields.contains("Transfer-Encoding") || length != 0 && length != nil {
            closing = true
        }
    }

    /// Sends `100 Continue` when the request asked for it (RFC 9110 §10.1.1), just before its body is read.
    func continueIfExpected() throws {
        guard continueExpected else { return }
        continueExpected = false
        try send(ResponseHead(status: 100, reason: "Continue"))
    }

    func send(_ head: ResponseHead, body: [UInt8] = []) throws {
        if head.isInformational, refusesInformational { return }
        logResponse(head)
        try reader.send(head, body: body, timeout: configuration.limits.idleTimeout)
    }

    /// Sends a response of the upload protocol: marked `Connection: close` when the connection ends after it, and
    /// with the `Content-Digest` of its content when the request asked for one.
    func send(_ response: UploadResponse) throws {
        var head = response.head
        if closing && !head.isInformational { head.fields.set("close", for: "Connection") }
        if let algorithm = wantedContentDigest, !head.isInformational, method != .head {
            let digest = MessageDigest.digest(of: response.body, algorithm.hash)
            head.fields.append(name: RequestDigests.contentField, value: RequestDigests.field([algorithm: digest]))
        }
        try send(head, body: method == .head ? [] : response.body)
    }

    /// Answers `status` and closes; `detail`, when given, is the body (`text/plain`), saying what was wrong.
    func sendStatusAndClose(_ status: Int, _ reason: String, detail: String? = nil) {
        closing = true
        let head = ResponseHead(status: status, reason: reason)
        guard let detail else {
            try? send(UploadResponse.empty(head))
            return
        }
        try? send(UploadResponse.explained(head, "squall server: " + detail))
    }

    /// The state machines' clock: `UploadServer.wallClock()`.
    static func now() -> Duration {
        UploadServer.wallClock()
    }
}
