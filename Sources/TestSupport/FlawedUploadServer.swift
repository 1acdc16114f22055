import Glibc
import HTTPExchange
import HTTPWire
import ResumableUpload
import SquallNet
import Synchronization

/// A small in-memory resumable-upload server on loopback for negative controls: the `ResumableUpload` rules
/// (`UploadRequest.classify`, `UploadResourceStateMachine`) served one request per connection, conformant except
/// for one `Flaw`, each a misbehaviour real servers have. Creations go to `creationURL` (`/upload`), uploads live
/// at `/upload/<n>`.
///
/// Ready when `init` returns. Requests on one upload are served one at a time (a HEAD waits until a creation cut
/// short has stored what it got).
public final class FlawedUploadServer: Sendable {
    /// The one thing the server gets wrong.
    public enum Flaw: String, Sendable, CaseIterable {
        /// None: the server passes every case.
        case none
        /// Answers with the other version's completion field, its meaning kept: `Upload-Incomplete: ?0` to an
        /// interop 6 client (NIO's `processResponse`), `Upload-Complete` to an interop 3 one.
        case swappedCompletionField
        /// Deletes the upload when it answers an append 409 (a later HEAD gets 404).
        case conflictDeletesUpload
        /// Answers 400 to a request carrying an interop version it does not serve (or implement), instead of serving
        /// a plain upload (NIO answers 400, tusd 412).
        case rejectsUnknownVersions
        /// Answers only a head that arrives whole in the connection's first read; otherwise it waits for the
        /// rest without ever parsing it (the connection hangs until the client gives up).
        case needsHeadInOneRead
        /// Sends its 409s without `Upload-Complete: ?0` (required from interop 9, #3404).
        case conflictWithoutIncompleteFlag
        /// Answers GET on an upload 405, as before interop 9 (-12 makes it an offset retrieval, #3467).
        case getIsNotRetrieval
        /// Keeps an upload after an append that would pass its length (-12 §4.4.2: the upload is invalid then).
        case keepsUploadPastLength
        /// Sends its 104s and 201s without `Upload-Limit` though it has limits (required from interop 8, -09).
        case noLimitsOnAnnouncement
        /// Behaves as Apple's interop-10 middleware (`HTTPServerResumableUploadMiddleware`) documents itself: a
        /// request at a version it does not serve gets 400, inconsistent lengths get 409, incomplete appends 201 (the
        /// last a choice the draft allows).
        case appleMiddleware
    }

    /// How long a connection waits for its peer.
    public static let patience: Duration = .seconds(20)

    /// The base URL, `http://127.0.0.1:PORT`.
    public let url: String
    public let flaw: Flaw
    private let loop: AcceptLoop
    private let uploads = Mutex<Uploads>(Uploads())
    /// The draft's rules, with the versions it serves.
    private let rules: UploadProtocolConfiguration

    /// The uploads, by id; ids count the creations.
    private struct Uploads {
        var machines: [String: UploadResourceStateMachine] = [:]
        var created = 0
    }

    /// Starts the server on 127.0.0.1, port 0, serving `versions` resumably (default: all), with `maxSize` as its
    /// one limit when given.
    public init(flaw: Flaw, versions: Set<InteropVersion> = Set(InteropVersion.all), maxSize: Int64? = nil) throws {
        var rules = UploadProtocolConfiguration()
        rules.versions = versions
        rules.limits.maxSize = maxSize
        self.rules = rules
        let box = Mutex<FlawedUploadServer?>(nil)
        loop = try LoopbackServer.start { socket in
            guard let server = box.withLock({ $0 }) else { return socket.close() }
            server.serve(socket)
        }
        url = "http://" + loop.address.description
        self.flaw = flaw
        box.withLock { $0 = self }
    }

    deinit {
        loop.stop()
    }

    /// Where uploads are created.
    public var creationURL: String { url + rules.creationPath }

    /// Stops accepting and waits (bounded) for the open connections to end.
    public func stop() {
        loop.stop()
        _ = loop.waitUntilIdle(timeout: Self.patience)
    }

    private func serve(_ socket: Socket) {
        defer { socket.close() }
        if flaw == .needsHeadInOneRead, !Self.firstReadHoldsHead(socket) { return Self.waitForClose(socket) }
        guard (try? socket.setNonBlocking(true)) != nil else { return }
        let server = HTTPServerStream(stream: PlainStream(socket: socket))
        do {
            if let head = try server.nextHead(idleTimeout: Self.patience, headTimeout: Self.patience) {
                try handle(head, on: server)
            }
        } catch let error as HTTPExchangeError where error.wireError != nil {
            let status = [.headTooLarge, .tooManyFields, .fieldLineTooLong].contains(error.wireError!.code) ? 431 : 400
            try? reply(
                UploadResponse(head: ResponseHead(status: status, fields: ["Content-Length": "0"])), .get, server)
        } catch {}
        server.drainBeforeClose()
    }

    private func handle(_ head: RequestHead, on server: HTTPServerStream) throws {
        let version = InteropVersion(fields: head.fields)
        if flaw == .getIsNotRetrieval, head.method == .get, head.target.hasPrefix(rules.resourcePathPrefix) {
            let refusal = ResponseHead(status: 405, reason: "Method Not Allowed", fields: ["Content-Length": "0"])
            return try reply(UploadResponse(head: refusal), head.method, server)
        }
        if flaw == .rejectsUnknownVersions || flaw == .appleMiddleware, head.fields.contains(InteropVersion.fieldName),
            version.map({ !rules.versions.contains($0) }) ?? true
        {
            let refusal = ResponseHead(status: 400, reason: "Bad Request", fields: ["Content-Length": "0"])
            return try reply(UploadResponse(head: refusal), head.method, server)
        }
        let request: UploadRequest
        do {
            request = try UploadRequest.classify(head, configuration: rules)
        } catch {
            return try reply(
                UploadResponse.rejection(error, version: version, limits: UploadLimits()), head.method, server)
        }
        switch request {
        case .options(let version):
            try reply(
                UploadResponse.options(version: version, limits: UploadLimits(), resumable: true), .options, server)
        case .create(let creation):
            try create(creation, head, server)
        case .offset(let id, let version):
            try onUpload(id, version, head, server) { $0.offsetRequested(version: version, now: .zero) }
        case .cancel(let id, let version):
            try onUpload(id, version, head, server) { $0.cancel(version: version, now: .zero) }
        case .append(let id, let append):
            try onUpload(id, append.version, head, server) { $0.startAppend(append, now: .zero) }
        case .plainUpload:
            while case .data = try server.nextBodyPart(timeout: Self.patience) {}
            let status = head.method == .post || head.method == .put ? 201 : 404
            try reply(
                UploadResponse(head: ResponseHead(status: status, fields: ["Content-Length": "0"])), head.method, server
            )
        }
    }

    private func create(_ request: CreationRequest, _ head: RequestHead, _ server: HTTPServerStream) throws {
        try uploads.withLock { (uploads: inout Uploads) throws in try create(request, head, server, in: &uploads) }
    }

    private func create(
        _ request: CreationRequest, _ head: RequestHead, _ server: HTTPServerStream, in uploads: inout Uploads
    ) throws {
        uploads.created += 1
        let id = String(uploads.created)
        let started: (machine: UploadResourceStateMachine, actions: [UploadAction])
        do {
            started = try UploadResourceStateMachine.create(
                id: id, location: url + rules.resourcePathPrefix + id, request: request,
                configuration: rules, now: .zero)
        } catch {
            let response = UploadResponse.rejection(error, version: request.version, limits: UploadLimits())
            return try reply(response, .post, server)
        }
        var machine = started.machine
        defer { uploads.machines[id] = machine }
        try play(started.actions, head, server)
        try receive(into: &machine, head, server)
    }

    /// A HEAD, DELETE or PATCH on upload `id`: `event` of its machine; an accepted PATCH streams its body.
    private func onUpload(
        _ id: String, _ version: InteropVersion, _ head: RequestHead, _ server: HTTPServerStream,
        _ event: (inout UploadResourceStateMachine) -> [UploadAction]
    ) throws {
        try uploads.withLock { (uploads: inout Uploads) throws in
            try onUpload(id, version, head, server, in: &uploads, event)
        }
    }

    private func onUpload(
        _ id: String, _ version: InteropVersion, _ head: RequestHead, _ server: HTTPServerStream,
        in uploads: inout Uploads, _ event: (inout UploadResourceStateMachine) -> [UploadAction]
    ) throws {
        guard var machine = uploads.machines[id] else {
            let error = UploadProtocolError(.unknownUpload, "no upload \(id)")
            return try reply(
                UploadResponse.rejection(error, version: version, limits: UploadLimits()), head.method, server)
        }
        var deleted = false
        let before = machine
        defer { uploads.machines[id] = deleted ? nil : machine }
        let actions = event(&machine)
        if flaw == .keepsUploadPastLength, actions.contains(where: Self.passesLength) {
            machine = before
        }
        if try play(actions, head, server) {
            deleted = flaw == .conflictDeletesUpload && actions.contains(where: Self.isConflict)
        } else if machine.isReceiving {
            try receive(into: &machine, head, server)
        }
    }

    /// Reads the request's body into `machine` until it has a final response, and sends what it says.
    private func receive(
        into machine: inout UploadResourceStateMachine, _ head: RequestHead, _ server: HTTPServerStream
    ) throws {
        while machine.isReceiving {
            let part: HTTPServerStream.BodyPart
            do {
                part = try server.nextBodyPart(timeout: Self.patience)
            } catch {
                _ = try machine.bodyInterrupted()
                return
            }
            switch part {
            case .data(let bytes):
                try play(try machine.bodyReceived(byteCount: Int64(bytes.count), now: .zero), head, server)
            case .end: try play(try machine.bodyEnded(now: .zero), head, server)
            }
        }
    }

    /// Sends the responses among `actions`; true when one was final.
    @discardableResult
    private func play(_ actions: [UploadAction], _ head: RequestHead, _ server: HTTPServerStream) throws -> Bool {
        var final = false
        for action in actions {
            switch action {
            case .sendInterim(let interim):
                try reply(UploadResponse(head: interim), head.method, server)
            case .send(let response), .reject(_, let response):
                try reply(response, head.method, server)
                final = true
            default:
                break
            }
        }
        return final
    }

    private func reply(_ response: UploadResponse, _ method: HTTPMethod, _ server: HTTPServerStream) throws {
        var head = response.head
        if flaw == .swappedCompletionField { head.fields = HTTPFields(head.fields.map(Self.swapped)) }
        if flaw == .conflictWithoutIncompleteFlag, head.status == 409 { head.fields.remove("Upload-Complete") }
        if flaw == .noLimitsOnAnnouncement, [104, 201].contains(head.status) {
            head.fields.remove(UploadLimits.fieldName)
        }
        if flaw == .appleMiddleware {
            // Inconsistent lengths at creation: 409 (its README's "Limitations"); incomplete appends: 201.
            if method == .post, head.status == 400, head.fields["Content-Type"] == UploadProblem.mediaType,
                String(decoding: response.body, as: UTF8.self).contains("inconsistent-upload-length")
            {
                head = ResponseHead(status: 409, reason: "Conflict", fields: head.fields)
            }
            if method == .patch, head.status == 204, head.fields["Upload-Complete"] == "?0" {
                head = ResponseHead(status: 201, reason: "Created", fields: head.fields)
            }
        }
        if !head.isInformational { head.fields.set("close", for: "Connection") }
        try server.send(head, body: method == .head ? [] : response.body, timeout: Self.patience)
    }

    private static func passesLength(_ action: UploadAction) -> Bool {
        guard case .reject(let error, _) = action else { return false }
        return error.passesLength
    }

    private static func isConflict(_ action: UploadAction) -> Bool {
        guard case .reject(let error, _) = action else { return false }
        return error.code == .mismatchingOffset
    }

    /// `Upload-Complete: ?1` as `Upload-Incomplete: ?0` and the other way round; other fields as they are.
    private static func swapped(_ field: HTTPField) -> HTTPField {
        let inverted = field.value == "?1" ? "?0" : "?1"
        switch field.name.lowercased() {
        case "upload-complete": return HTTPField(name: "Upload-Incomplete", value: inverted)
        case "upload-incomplete": return HTTPField(name: "Upload-Complete", value: inverted)
        default: return field
        }
    }

    /// Whether the first read of the connection (a peek, within `patience`) holds a whole head.
    private static func firstReadHoldsHead(_ socket: Socket) -> Bool {
        var entry = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(patience.components.seconds * 1000)) == 1 else { return false }
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(socket.fd, &bytes, bytes.count, Int32(MSG_PEEK))
        guard count > 3 else { return false }
        return (3..<count).contains { bytes[$0 - 3...$0].elementsEqual([13, 10, 13, 10]) }
    }

    /// Reads and drops whatever comes until the peer closes (or `patience` passes): a head never parsed.
    private static func waitForClose(_ socket: Socket) {
        let deadline = ContinuousClock.now + patience
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        while deadline > .now {
            var entry = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32((deadline - .now).components.seconds * 1000 + 1)) == 1 else { return }
            guard recv(socket.fd, &bytes, bytes.count, 0) > 0 else { return }
        }
    }
}
