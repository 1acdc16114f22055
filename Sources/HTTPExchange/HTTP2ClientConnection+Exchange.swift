import Foundation
import Glibc
import HTTP2Wire
import HTTPWire

extension HTTP2ClientConnection {
    /// A caller's hold on its exchange, to cancel it from another thread (`cancel(_:)`): the stream is reset
    /// (`RST_STREAM` `CANCEL`) and the exchange ends with `cancelled`; the connection's other streams go on.
    public final class Ticket: @unchecked Sendable {
        /// Guarded by the connection's lock.
        var cancelled = false

        public init() {}
    }

    /// Cancels the exchange holding `ticket`, or the next one to start with it.
    public func cancel(_ ticket: Ticket) {
        locked {
            ticket.cancelled = true
            condition.broadcast()
        }
    }

    /// The content queued on a stream and not yet framed, at most; more waits for the window to drain it.
    static let queueLimit = 256 * 1024

    /// Sends `head` (its `Host` as `:authority`) and `body` on a new stream, and waits for the final response to end,
    /// as `HTTPClientStream.exchange` does over HTTP/1.1: interim responses (104s as `HEADERS` frames) go to
    /// `onInterim` as they arrive, content bytes to `onBodySent` as they are framed, the final response's content to
    /// `onContent` and, up to `bodyLimit`, to the response.
    ///
    /// `progressTimeout` bounds every wait for progress on the stream (a frame of it read, content of it framed);
    /// one that passes resets the stream (`CANCEL`) and throws `timedOut`, so a window never reopened ends the
    /// exchange. A final response before the content is all sent stops the sending and resets the stream once the
    /// response has ended. Throws `refused` when the peer did not process the request (safe to send again).
    public func exchange(
        _ head: RequestHead, body: RequestBody? = nil, progressTimeout: Duration,
        bodyLimit: ResponseBodyLimit = .keepFirst(64 * 1024), ticket: Ticket = Ticket(),
        onInterim: (ResponseHead) -> Bool = { _ in true }, onBodySent: (Int) -> Bool = { _ in true },
        onContent: ((ArraySlice<UInt8>) -> Void)? = nil
    ) throws(HTTPExchangeError) -> HTTPResponse {
        let (id, state) = try open(head, body: body, progressTimeout: progressTimeout, ticket: ticket)
        var run = StreamRun(id: id, state: state, body: body, bodyLimit: bodyLimit, timeout: progressTimeout)
        run.onContent = onContent
        do {
            return try run.run(on: self, ticket: ticket, onInterim: onInterim, onBodySent: onBodySent)
        } catch {
            locked {
                if streams.removeValue(forKey: id) != nil { session.reset(id, code: .cancel) }
                // A stream that timed out may have met a stalled connection, and one refused a server that wants
                // fewer streams on it: later requests take a new one.
                if error.code == .timedOut || error.code == .refused { retired = true }
            }
            poke()
            throw error
        }
    }

    /// Waits for a stream slot and submits the request's head.
    private func open(
        _ head: RequestHead, body: RequestBody?, progressTimeout: Duration, ticket: Ticket
    ) throws(HTTPExchangeError) -> (Int32, StreamState) {
        let deadline = Date(timeIntervalSinceNow: progressTimeout / .seconds(1))
        condition.lock()
        defer { condition.unlock() }
        waitingForSlot += 1
        defer { waitingForSlot -= 1 }
        while true {
            if ticket.cancelled { throw HTTPExchangeError(.cancelled, "the exchange was aborted") }
            if ended || retired || goawayLastStream != nil {
                throw HTTPExchangeError(
                    .refused, "the connection takes no new stream (\(ended ? endReason : "GOAWAY"))")
            }
            let limit = Int(min(session.peerSetting(.maxConcurrentStreams), 1 << 20))
            if streams.count < max(limit, 1) { break }
            if !condition.wait(until: deadline) {
                throw HTTPExchangeError(.timedOut, "no stream slot within \(progressTimeout)")
            }
        }
        let empty = (body?.length ?? 0) == 0
        let id: Int32
        do {
            id = try session.submitRequest(HTTP2Heads.fields(of: head, scheme: scheme), endStream: empty)
        } catch {
            // The session takes no new stream (a GOAWAY or a failure it met before this connection's thread said so),
            // or no stream id is left: the request was not sent, and may go on another connection.
            retired = true
            throw HTTPExchangeError(.refused, "the connection takes no new stream: \(error)")
        }
        let state = StreamState()
        streams[id] = state
        poke()
        return (id, state)
    }
}

/// What the connection's thread saw of one stream, for its caller (guarded by the connection's lock).
final class StreamState {
    var interims: [ResponseHead] = []
    var final: ResponseHead?
    var content: [[UInt8]] = []
    var ended = false
    var failure: HTTPExchangeError?
    var closedClean = false
    var resetByPeer = false
    /// How much of the content queued on the stream was never framed when it closed (reset or not), as the session
    /// counted it; nil when unknown.
    var unframedAtClose: Int?
    var lastProgress = ContinuousClock.now

    func received(_ fields: [HTTPField], endStream: Bool) {
        lastProgress = .now
        if final == nil, let head = HTTP2Heads.response(fields) {
            if head.isInformational { interims.append(head) } else { final = head }
        }
        // Else trailers: nothing in them is used; they may end the response.
        if endStream { responseEnded() }
    }

    func received(_ bytes: [UInt8]) {
        lastProgress = .now
        content.append(bytes)
    }

    func responseEnded() {
        if final != nil { ended = true }
    }

    func reset(_ code: HTTP2ErrorCode) {
        // Reset by the peer, the stream's queued content was dropped: its close says nothing of what was framed.
        resetByPeer = true
        guard !ended, failure == nil else { return }
        failure =
            code == .refusedStream
            ? HTTPExchangeError(.refused, "the server refused the stream (REFUSED_STREAM)")
            : HTTPExchangeError(.reset, "the server reset the stream (\(code))")
    }

    func closed(_ code: HTTP2ErrorCode) {
        // Closed without an error and without a reset, the stream ended both ways: all its content was framed.
        if code == .noError && !resetByPeer { closedClean = true }
        guard !ended, failure == nil else { return }
        if code == .noError {
            failure = HTTPExchangeError(.closed, "the stream closed before its response ended")
        } else {
            reset(code)
        }
    }

    func refused(_ why: String) {
        // A stream the server answered (a final head) was processed, whatever its GOAWAY says.
        guard !ended, failure == nil, final == nil else { return }
        failure = HTTPExchangeError(.refused, "the server did not process the stream: \(why)")
    }

    func connectionEnded(_ reason: String, goaway: Int32?) {
        guard !ended, failure == nil else { return }
        failure = HTTPExchangeError(.closed, reason)
    }
}

/// One caller's side of a stream: it queues the content as the window drains, and hands over what arrives.
private struct StreamRun {
    let id: Int32
    let state: StreamState
    let body: RequestBody?
    let bodyLimit: ResponseBodyLimit
    let timeout: Duration
    var onContent: ((ArraySlice<UInt8>) -> Void)?
    /// Content bytes queued on the session, and those already reported as sent.
    var submitted: Int64 = 0
    var reported: Int64 = 0
    var sending: Bool
    var interims: [ResponseHead] = []
    var responseBody: [UInt8] = []
    var chunk: [UInt8] = []

    init(id: Int32, state: StreamState, body: RequestBody?, bodyLimit: ResponseBodyLimit, timeout: Duration) {
        self.id = id
        self.state = state
        self.body = body
        self.bodyLimit = bodyLimit
        self.timeout = timeout
        self.sending = (body?.length ?? 0) > 0
    }

    /// What one turn took from the stream's state under the lock.
    struct Turn {
        var interims: [ResponseHead] = []
        var content: [[UInt8]] = []
        var sent: Int64 = 0
        var final: ResponseHead?
        var ended = false
        var failure: HTTPExchangeError?
        var wantsContent = false
    }

    mutating func run(
        on connection: HTTP2ClientConnection, ticket: HTTP2ClientConnection.Ticket,
        onInterim: (ResponseHead) -> Bool, onBodySent: (Int) -> Bool
    ) throws(HTTPExchangeError) -> HTTPResponse {
        while true {
            let turn = try take(from: connection, ticket: ticket)
            for head in turn.interims {
                if interims.count < HTTPResponse.interimLimit { interims.append(head) }
                guard onInterim(head) else { throw HTTPExchangeError(.cancelled, "the exchange was aborted") }
            }
            if turn.sent > 0 {
                guard onBodySent(Int(turn.sent)) else {
                    throw HTTPExchangeError(.cancelled, "the exchange was aborted")
                }
            }
            for bytes in turn.content {
                onContent?(bytes[...])
                try bodyLimit.keep(bytes[...], in: &responseBody)
            }
            if var failure = turn.failure, !turn.ended {
                // A stream the server answered (a 104) was processed, whatever a GOAWAY says: it is interrupted.
                if failure.code == .refused && (!interims.isEmpty || turn.final != nil) {
                    failure = HTTPExchangeError(.closed, "\(failure.detail), after the server's interim response")
                }
                throw failure
            }
            if turn.ended, let final = turn.final {
                let everything = reported == (body?.length ?? 0)
                if !everything {
                    // The answer came before the content was all sent: the rest is not wanted. The stream is let go
                    // now (its slot free), not when its close comes back.
                    connection.locked {
                        connection.session.reset(id, code: .cancel)
                        connection.streams[id] = nil
                        connection.condition.broadcast()
                    }
                    connection.poke()
                }
                return HTTPResponse(
                    interims: interims, head: final, body: responseBody, bodyBytesSent: reported,
                    sentEverything: everything)
            }
            if turn.wantsContent { try queueContent(on: connection) }
        }
    }

    /// Waits (under the lock) until the stream has something for the caller, or its content queue has room, and
    /// takes it.
    mutating func take(
        from connection: HTTP2ClientConnection, ticket: HTTP2ClientConnection.Ticket
    ) throws(HTTPExchangeError) -> Turn {
        connection.condition.lock()
        defer { connection.condition.unlock() }
        while true {
            if ticket.cancelled { throw HTTPExchangeError(.cancelled, "the exchange was aborted") }
            var turn = Turn()
            let open = connection.streams[id] != nil
            // A closed stream: what the session had not framed at the close (a reset's last frames went too);
            // unknown, nothing more than was reported.
            let queued =
                open
                ? Int64(connection.session.queuedCount(on: id))
                : state.closedClean ? 0 : state.unframedAtClose.map(Int64.init) ?? submitted - reported
            let framed = submitted - queued
            if framed > reported {
                state.lastProgress = .now
                turn.sent = framed - reported
                reported = framed
            }
            turn.interims = state.interims
            state.interims.removeAll()
            turn.content = state.content
            state.content.removeAll()
            if state.final != nil { sending = false }
            turn.final = state.final
            turn.ended = state.ended
            turn.failure = state.failure
            turn.wantsContent =
                open && sending && submitted < body!.length && queued < HTTP2ClientConnection.queueLimit
            if turn.sent > 0 || !turn.interims.isEmpty || !turn.content.isEmpty || turn.ended || turn.failure != nil
                || turn.wantsContent
            {
                return turn
            }
            let deadline = state.lastProgress + timeout
            let remaining = deadline - .now
            guard remaining > .zero else { throw HTTPExchangeError(.timedOut, "no progress within \(timeout)") }
            _ = connection.condition.wait(until: Date(timeIntervalSinceNow: remaining / .seconds(1)))
        }
    }

    /// Reads the next chunk of the content and queues it on the stream (ending it after the last one).
    mutating func queueContent(on connection: HTTP2ClientConnection) throws(HTTPExchangeError) {
        guard let body else { return }
        let count = Int(min(Int64(max(body.chunkSize, 1)), body.length - submitted))
        switch body.source {
        case .bytes(let bytes):
            chunk = Array(bytes[Int(submitted)..<Int(submitted) + count])
        case .file(let descriptor, let offset):
            if chunk.count != count { chunk = [UInt8](repeating: 0, count: count) }
            let position = offset + submitted
            let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(position)) }
            guard read > 0 else {
                throw HTTPExchangeError(
                    .bodySourceFailed, "reading \(count) bytes at \(position) gave \(read) (errno \(errno))")
            }
            if read < count { chunk.removeLast(count - read) }
        }
        let last = submitted + Int64(chunk.count) == body.length
        let queued = connection.locked { () -> Bool in
            guard connection.streams[id] != nil else { return false }
            connection.session.send(chunk, on: id)
            if last { connection.session.end(id) }
            return true
        }
        guard queued else { return }
        submitted += Int64(chunk.count)
        connection.poke()
    }
}
