import HTTPExchange
import HTTPWire
import ResumableUpload
import Scenario
import SquallNet
import TLSKit
import UploadClient

/// The interim responses an exchange handed over before it was cut.
private final class InterimLog {
    var interims: [ResponseHead] = []
}

/// What one case works with — its interop version, the server's creation URL, what the profile says, its deadline
/// — and how it talks to the server: each request on a connection of its own, every answer judged by
/// `ServerConformance` (alone) and `UploadOffsetHistory` (across the case's requests), a deviation failing the case.
///
/// ```
/// case ──CheckRequest──▶ send: connect (deadline watches the socket) ─▶ write (whole, in pieces, or cut short)
///                              ─▶ read 104s and the final response ─▶ judge ──CheckAnswer──▶ case's expectations
/// ```
final class CheckSession {
    let version: InteropVersion
    let creationURL: HTTPURL
    let profile: ServerProfile?
    let deadline: CaseDeadline
    private let token: String?
    private let tls: TLSContext?
    private var history = UploadOffsetHistory()

    init(
        version: InteropVersion, creationURL: HTTPURL, profile: ServerProfile?, token: String?, tls: TLSContext?,
        deadline: CaseDeadline
    ) {
        self.version = version
        self.creationURL = creationURL
        self.profile = profile
        self.token = token
        self.tls = tls
        self.deadline = deadline
    }

    /// Sends `request` on a new connection and returns what the server answered; no answer within the case's
    /// time, or an answer that deviates from the draft, fails the case.
    func send(_ request: CheckRequest) throws(CheckFailure) -> CheckAnswer {
        var request = request
        if !request.head.fields.contains("Content-Length"),
            !request.body.isEmpty || [.post, .put, .patch].contains(request.head.method)
        {
            request.head.fields.set(String(request.body.count), for: "Content-Length")
        }
        if let token { request.head.fields.set("Bearer \(token)", for: "Authorization") }
        let answer: CheckAnswer
        do {
            let connection = try HTTPClientConnection.open(
                to: request.url.endpoint, tls: tls, timeout: deadline.remaining,
                willConnect: { [deadline] socket in
                    socket.setNoDelay()
                    deadline.watch(socket)
                })
            defer { connection.close() }
            answer = try exchange(request, on: connection)
        } catch {
            let observed =
                deadline.hasPassed ? "no answer within the case's \(deadline.timeout) (--timeout)" : "\(error)"
            throw CheckFailure(expected: "an answer to \(request.label)", observed: observed)
        }
        try judge(answer, request)
        return answer
    }

    /// The upload resource at `location` (absolute, or a path on the creation URL's server).
    func resource(_ location: String) throws(CheckFailure) -> HTTPURL {
        do {
            return try creationURL.resolving(location)
        } catch {
            throw CheckFailure(expected: "a Location that is an http(s) URL or an absolute path", observed: location)
        }
    }

    private func exchange(_ request: CheckRequest, on connection: HTTPClientConnection) throws -> CheckAnswer {
        let method = request.head.method
        switch request.delivery {
        case .whole:
            let body = request.body.isEmpty ? nil : RequestBody(bytes: request.body)
            let response = try connection.exchange(request.head, body: body, readTimeout: deadline.remaining)
            return CheckAnswer(
                interims: response.interims, final: response.head, body: response.body, request: request.head)
        case .headInPieces(let size, let gap):
            let head = try connection.serialized(request.head)
            for start in stride(from: 0, to: head.count, by: size) {
                if start > 0 { deadline.pause(gap) }
                try connection.stream.writeAll(
                    Array(head[start..<min(start + size, head.count)]), deadline: deadline.instant)
            }
            try connection.stream.writeAll(request.body, deadline: deadline.instant)
            let response = try connection.readResponses(to: method, readTimeout: deadline.remaining)
            return CheckAnswer(
                interims: response.interims, final: response.head, body: response.body, request: request.head)
        case .cutAfterAnnouncement:
            let bytes = try connection.serialized(request.head) + request.body
            try connection.stream.writeAll(bytes, deadline: deadline.instant)
            return try readUntilAnnounced(request, on: connection)
        }
    }

    /// Reads the answers to a request cut short until a 104 announces the upload, then ends the request there
    /// with a FIN after the bytes sent; a final response that comes first is the answer.
    private func readUntilAnnounced(_ request: CheckRequest, on connection: HTTPClientConnection) throws
        -> CheckAnswer
    {
        let seen = InterimLog()
        do {
            let response = try connection.readResponses(to: request.head.method, readTimeout: deadline.remaining) {
                seen.interims.append($0)
                return !($0.status == 104 && $0.fields["Location"] != nil)
            }
            return CheckAnswer(
                interims: response.interims, final: response.head, body: response.body, request: request.head)
        } catch {
            guard error.code == .cancelled else { throw error }
            try? connection.stream.shutdownWrite(deadline: deadline.instant)
            return CheckAnswer(interims: seen.interims, final: nil, body: [], request: request.head)
        }
    }

    /// `ServerConformance` on the exchange alone, then the offsets it acknowledges against what the case's
    /// earlier requests delivered and the server acknowledged.
    private func judge(_ answer: CheckAnswer, _ request: CheckRequest) throws(CheckFailure) {
        let bytes = Int64(request.body.count)
        let exchange = ServerExchange(
            request: request.head, interims: answer.interims, response: answer.final, bodyBytes: bytes,
            statedLength: request.statedLength)
        var deviations = ServerConformance.check(
            exchange, served: version.isFinal ? [InteropVersion.finalRawValue] : nil)
        let announced = answer.announcements.first?.fields["Location"]
        let method = request.head.method
        let path = method == .patch ? UploadRequest.path(of: request.head.target) : announced.map(UploadRequest.path)
        if let start = UploadRequestFacts(request.head).start, let path {
            history.delivered(path: path, through: start + bytes)
        }
        for response in answer.interims + (answer.final.map { [$0] } ?? []) {
            guard
                let acknowledged = ServerConformance.acknowledgement(
                    request: request.head, response: response, creationLocation: announced)
            else { continue }
            deviations += history.acknowledged(
                path: acknowledged.path, offset: acknowledged.offset, by: "the \(response.status) to \(method)")
        }
        guard !deviations.isEmpty else { return }
        throw CheckFailure(
            expected: "answers that follow the draft at \(version)",
            observed: "\(request.label) → \(answer.status): " + deviations.map(\.description).joined(separator: "; "))
    }
}
