import Glibc
import HTTPWire
import SquallNet
import TLSKit

/// What one creation request saw, from the connect to the end of the final response.
struct CreationOutcome: Sendable {
    /// Body bytes the server accepted from the socket.
    var sentBytes: Int64 = 0
    /// Lowercase hex SHA-256 of the bytes sent; nil when hashing was off.
    var sha256: String?
    /// Informational (1xx) heads received: the 104 with `Location`, then progress 104s.
    var interims = 0
    var final: ResponseHead?
    /// The upload resource's URL, from the first head that carried `Location`.
    var location: String?
    var duration: Duration = .zero
    /// From the head's last byte written to the first head carrying `Location` read (the creation's 104).
    var announcedAfter: Duration?
    /// Body bytes the server's socket had taken by then.
    var sentBeforeAnnouncement: Int64?

    /// The upload's id: the last path segment of its `Location`.
    var uploadID: String? {
        location?.split(separator: "/").last.map(String.init)
    }
}

/// One creation request of draft-ietf-httpbis-resumable-upload (interop 8, draft -08: `Upload-Complete: ?1` and
/// `Content-Length`, so the whole upload in one request), its body streamed from a `BodyPattern`.
///
/// The request is written and the responses read in one `poll()` loop on a non-blocking socket: the server sends a
/// progress 104 every MiB while the body is still coming, and a client that only read after writing could fill
/// both socket buffers and stall the server's 104s, hence its reading of the body.
///
/// ```
///   connect ─▶ head ─▶ ┌ writable: next piece of the pattern (hashed as it goes) ┐ ─▶ final head ─▶ .end
///                      └ readable: 104 (Location), progress 104s … ──────────────┘
/// ```
struct CreationClient {
    var target: UploadTarget
    var path = "/upload"
    var interopVersion = 8
    /// Whether to hash the body as it is sent (about 1.4 GB/s of one core with SHA-NI).
    var hashing = true
    /// The longest the whole exchange may take.
    var timeout: Duration
    /// End the exchange at the first head carrying `Location` (the announcement), with an RST: `announce` measures
    /// only the time until it.
    var stopAtAnnouncement = false

    /// Sends `body` in one creation request and reads every response to it.
    func upload(_ body: BodyPattern) throws -> CreationOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started.advanced(by: timeout)
        let socket = try TCPConnector.connect(to: target.address, timeout: timeout)
        defer { socket.close() }
        try socket.setNonBlocking(true)
        let stream = PlainStream(socket: socket)
        try stream.writeAll(try HTTP1Serializer.serialize(head(length: body.length)), deadline: deadline)
        var exchange = Exchange(digest: hashing ? MessageDigest(.sha256) : nil)
        exchange.headWritten = clock.now
        exchange.stopAtAnnouncement = stopAtAnnouncement
        try exchange.run(stream, body, deadline: deadline)
        if stopAtAnnouncement { socket.abort() }
        var outcome = exchange.outcome
        outcome.duration = clock.now - started
        return outcome
    }

    private func head(length: Int64) -> RequestHead {
        RequestHead(
            method: .post, target: path,
            fields: [
                "Host": target.authority,
                "Upload-Draft-Interop-Version": String(interopVersion),
                "Upload-Complete": "?1",
                "Content-Length": String(length),
            ])
    }
}

/// The state of one exchange in `CreationClient`'s loop.
private struct Exchange {
    var outcome = CreationOutcome()
    let digest: MessageDigest?
    var parser = HTTP1Parser(role: .client)
    var finished = false
    /// The server stopped reading (it answered early and closed): no more body, but its response may be there.
    var writeFailed = false
    var headWritten = ContinuousClock.now
    var stopAtAnnouncement = false
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(digest: MessageDigest?) {
        self.digest = digest
        parser.expectResponse(to: .post)
    }

    /// Writes the body while no final response came, reads responses until the final one has ended.
    mutating func run(_ stream: PlainStream, _ body: BodyPattern, deadline: ContinuousClock.Instant) throws {
        while !finished {
            let sending = outcome.final == nil && !writeFailed && outcome.sentBytes < body.length
            let ready = try wait(stream.fileDescriptor, writing: sending, deadline: deadline)
            if ready.contains(.read) { try receive(stream) }
            if sending && ready.contains(.write) { try send(stream, body) }
        }
        outcome.sha256 = digest.map { MessageDigest.hexString($0.finalize()) }
    }

    private mutating func send(_ stream: PlainStream, _ body: BodyPattern) throws {
        let piece = body.bytes(from: outcome.sentBytes)
        let result: IOOutcome
        do {
            result = try stream.write(piece)
        } catch {
            writeFailed = true
            return
        }
        guard case .done(let count) = result else { return }
        digest?.update(UnsafeRawBufferPointer(rebasing: piece[..<count]))
        outcome.sentBytes += Int64(count)
    }

    private mutating func receive(_ stream: PlainStream) throws {
        let result = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
        switch result {
        case .done(let count): handle(try parser.feed(buffer[..<count]))
        case .wouldBlock: return
        case .endOfStream:
            handle(try parser.finish())
            guard finished else {
                throw BenchError("the server closed after \(outcome.sentBytes) body bytes, before the final response")
            }
        }
    }

    private mutating func handle(_ events: [HTTP1Event]) {
        for event in events {
            switch event {
            case .responseHead(let head):
                if outcome.location == nil, let location = head.fields["Location"] {
                    outcome.location = location
                    outcome.announcedAfter = ContinuousClock.now - headWritten
                    outcome.sentBeforeAnnouncement = outcome.sentBytes
                    if stopAtAnnouncement { finished = true }
                }
                if head.isInformational { outcome.interims += 1 } else { outcome.final = head }
            case .end:
                finished = true
            default:
                continue
            }
        }
    }

    /// Waits until the socket is readable (or writable, when `writing`); what it is ready for.
    private func wait(_ fd: Int32, writing: Bool, deadline: ContinuousClock.Instant) throws -> IOInterest {
        let events = Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0)
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw BenchError("no final response within the timeout") }
            let status = poll(&entry, 1, Int32(clamping: remaining.milliseconds))
            if status < 0 && errno != EINTR { throw BenchError("poll failed: errno \(errno)") }
            guard status > 0 else { continue }
            if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return [.read, .write] }
            var ready: IOInterest = []
            if entry.revents & Int16(POLLIN) != 0 { ready.insert(.read) }
            if entry.revents & Int16(POLLOUT) != 0 { ready.insert(.write) }
            return ready
        }
    }
}
