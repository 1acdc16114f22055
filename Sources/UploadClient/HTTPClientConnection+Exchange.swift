import Glibc
import HTTPWire
import SquallNet

extension HTTPClientConnection {
    /// One request and its responses on a non-blocking stream, in a single `poll` loop that writes the request
    /// while the socket takes bytes and reads whatever the server sends meanwhile.
    ///
    /// ```
    ///  poll(read, write while sending) ──▶ readable: feed the parser ─▶ 1xx → onInterim; final head → stop
    ///       ▲                                                            sending; .end → done
    ///       └──────────────────────────── writable: head bytes, then file chunks (pread) → onBodySent
    /// ```
    struct Exchange {
        /// The bytes being written: the head, then one file chunk at a time.
        var outgoing: [UInt8]
        var outgoingOffset = 0
        var writingHead = true
        let body: RequestBody?
        var bodySent: Int64 = 0
        let readTimeout: Duration
        var sending = true
        /// What the last write waited for (TLS may need the socket readable to write).
        var writeInterest = IOInterest.write
        /// What the last read waited for (TLS may need the socket writable to read).
        var readInterest = IOInterest.read
        /// The error that stopped the sending; thrown if no final response arrives after it.
        var sendFailure: TransferError?
        var interims: [ResponseHead] = []
        var final: ResponseHead?
        var responseBody: [UInt8] = []
        var ended = false
        var lastProgress = ContinuousClock.now

        init(headBytes: [UInt8], body: RequestBody?, readTimeout: Duration) {
            self.outgoing = headBytes
            self.body = body
            self.readTimeout = readTimeout
        }

        /// Whether the head and all the content went out.
        var sentEverything: Bool {
            !writingHead && bodySent == (body?.length ?? 0) && sendFailure == nil
        }

        mutating func run(
            on connection: HTTPClientConnection, onInterim: (ResponseHead) -> Bool, onBodySent: (Int) -> Bool
        ) throws(TransferError) -> HTTPResponse {
            while !ended {
                let (readable, writable) = try waitForProgress(connection)
                if readable { try read(connection, onInterim: onInterim) }
                if sending && !ended && writable { try write(connection, onBodySent: onBodySent) }
            }
            return HTTPResponse(interims: interims, head: final!, body: responseBody, bodyBytesSent: bodySent)
        }

        /// Polls until the stream can be read or written, failing with `timedOut` after `readTimeout` without
        /// progress.
        mutating func waitForProgress(_ connection: HTTPClientConnection) throws(TransferError) -> (Bool, Bool) {
            if connection.stream.bufferedReadableCount > 0 { return (true, sending && writeInterest == .read) }
            var wanted = readInterest
            if sending { wanted.formUnion(writeInterest) }
            var events: Int16 = 0
            if wanted.contains(.read) { events |= Int16(POLLIN) }
            if wanted.contains(.write) { events |= Int16(POLLOUT) }
            var entry = pollfd(fd: connection.stream.fileDescriptor, events: events, revents: 0)
            while true {
                let remaining = lastProgress + readTimeout - .now
                guard remaining > .zero else {
                    throw TransferError(.timedOut, "no progress within \(readTimeout)")
                }
                let ready = poll(&entry, 1, Int32(clamping: remaining.milliseconds))
                if ready < 0 && errno != EINTR {
                    throw TransferError(.networkConnectionLost, "poll failed: errno \(errno)")
                }
                guard ready > 0 else { continue }
                let failed = entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                let readable = failed || entry.revents & Int16(readInterest == .read ? POLLIN : POLLOUT) != 0
                let writable = failed || entry.revents & Int16(writeInterest == .write ? POLLOUT : POLLIN) != 0
                return (readable, writable)
            }
        }

        /// Reads what is there and feeds the parser.
        mutating func read(_ connection: HTTPClientConnection, onInterim: (ResponseHead) -> Bool) throws(TransferError)
        {
            let events: [HTTP1Event]
            do {
                switch try connection.stream.read(into: connection.readBuffer) {
                case .done(let count):
                    lastProgress = .now
                    readInterest = .read
                    let bytes = UnsafeRawBufferPointer(rebasing: connection.readBuffer[..<count])
                    events = try connection.parser.feed(Array(bytes))
                case .wouldBlock(let interest):
                    readInterest = interest
                    return
                case .endOfStream:
                    events = try connection.parser.finish()
                    guard ended || events.contains(where: Self.isEnd) else {
                        throw sendFailure ?? TransferError(.networkConnectionLost, "the server closed the connection")
                    }
                }
            } catch {
                throw sendFailure ?? TransferError.mapping(error)
            }
            for event in events { try handle(event, onInterim: onInterim) }
        }

        static func isEnd(_ event: HTTP1Event) -> Bool {
            if case .end = event { return true }
            return false
        }

        mutating func handle(_ event: HTTP1Event, onInterim: (ResponseHead) -> Bool) throws(TransferError) {
            switch event {
            case .responseHead(let head) where head.isInformational:
                if interims.count < HTTPResponse.interimLimit { interims.append(head) }
                guard onInterim(head) else { throw TransferError(.cancelled, "the exchange was aborted") }
            case .responseHead(let head):
                final = head
                sending = false
            case .body(let bytes):
                let room = HTTPClientConnection.responseBodyLimit - responseBody.count
                if room > 0 { responseBody.append(contentsOf: bytes.prefix(room)) }
            case .end:
                ended = final != nil
            case .upgrade, .opaque, .requestHead:
                throw TransferError(.badServerResponse, "the server left HTTP/1.1")
            }
        }

        /// Writes as much of the current buffer as the stream takes, refilling it from the file when empty.
        mutating func write(_ connection: HTTPClientConnection, onBodySent: (Int) -> Bool) throws(TransferError) {
            if outgoingOffset == outgoing.count {
                guard try refill() else {
                    sending = false
                    return
                }
            }
            let outcome: IOOutcome
            do {
                outcome = try outgoing.withUnsafeBytes { bytes in
                    try connection.stream.write(UnsafeRawBufferPointer(rebasing: bytes[outgoingOffset...]))
                }
            } catch {
                // The server may have answered and closed (413, 401): read on for its final response.
                sendFailure = TransferError.mapping(error)
                sending = false
                return
            }
            switch outcome {
            case .done(let count):
                lastProgress = .now
                writeInterest = .write
                outgoingOffset += count
                if writingHead {
                    writingHead = outgoingOffset < outgoing.count
                    if !writingHead && (body?.length ?? 0) == 0 { sending = false }
                    return
                }
                bodySent += Int64(count)
                guard onBodySent(count) else { throw TransferError(.cancelled, "the exchange was aborted") }
            case .wouldBlock(let interest):
                writeInterest = interest
            case .endOfStream:
                sendFailure = TransferError(.networkConnectionLost, "the connection ended while sending")
                sending = false
            }
        }

        /// Loads the next file chunk into `outgoing`; false when the content is all sent.
        mutating func refill() throws(TransferError) -> Bool {
            guard let body, bodySent < body.length else { return false }
            let count = Int(min(Int64(max(body.chunkSize, 1)), body.length - bodySent))
            if outgoing.count != count { outgoing = [UInt8](repeating: 0, count: count) }
            let position = body.offset + bodySent
            let read = outgoing.withUnsafeMutableBytes { buffer in
                pread(body.fileDescriptor, buffer.baseAddress, count, off_t(position))
            }
            guard read > 0 else {
                throw TransferError(
                    .fileUnreadable, "reading \(count) bytes at \(position) gave \(read) (errno \(errno))")
            }
            if read < count { outgoing.removeLast(count - read) }
            outgoingOffset = 0
            return true
        }
    }
}
