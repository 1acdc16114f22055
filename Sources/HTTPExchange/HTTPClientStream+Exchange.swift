import Glibc
import HTTPWire
import SquallNet

extension HTTPClientStream {
    /// One request and its responses on a non-blocking stream, in a single `poll` loop that writes the request
    /// while the socket takes bytes and reads whatever the server sends meanwhile.
    ///
    /// ```
    ///  poll(read, write while sending) ──▶ readable: feed the parser ─▶ 1xx → onInterim; final head → stop
    ///       ▲                                                            sending; .end → done
    ///       └──────────────────────────── writable: head bytes, then body chunks (pread) → onBodySent
    /// ```
    struct Exchange {
        /// The bytes being written: the head, then one body chunk at a time.
        var outgoing: [UInt8]
        var outgoingOffset = 0
        var writingHead = true
        let body: RequestBody?
        var bodySent: Int64 = 0
        let timeout: Duration
        let bodyLimit: ResponseBodyLimit
        /// Sees every byte of the final response's content.
        var onContent: ((ArraySlice<UInt8>) -> Void)?
        var sending = true
        /// What the last write waited for (TLS may need the socket readable to write).
        var writeInterest = IOInterest.write
        /// What the last read waited for (TLS may need the socket writable to read).
        var readInterest = IOInterest.read
        /// The error that stopped the sending; thrown if no final response arrives after it.
        var sendFailure: HTTPExchangeError?
        var interims: [ResponseHead] = []
        var final: ResponseHead?
        var responseBody: [UInt8] = []
        var ended = false
        var lastProgress = ContinuousClock.now

        init(headBytes: [UInt8], body: RequestBody?, timeout: Duration, bodyLimit: ResponseBodyLimit) {
            self.outgoing = headBytes
            self.body = body
            self.timeout = timeout
            self.bodyLimit = bodyLimit
        }

        /// Whether the head and all the content went out.
        var sentEverything: Bool {
            !writingHead && bodySent == (body?.length ?? 0) && sendFailure == nil
        }

        mutating func run(
            on client: HTTPClientStream, onInterim: (ResponseHead) -> Bool, onBodySent: (Int) -> Bool
        ) throws(HTTPExchangeError) -> HTTPResponse {
            while !ended {
                let (readable, writable) = try waitForProgress(client.stream)
                if readable { try read(client, onInterim: onInterim) }
                if sending && !ended && writable { try write(client.stream, onBodySent: onBodySent) }
            }
            return HTTPResponse(
                interims: interims, head: final!, body: responseBody, bodyBytesSent: bodySent,
                sentEverything: sentEverything)
        }

        /// Polls until the stream can be read or written, failing with `timedOut` after `timeout` without progress.
        mutating func waitForProgress(_ stream: any ByteStream) throws(HTTPExchangeError) -> (Bool, Bool) {
            if stream.bufferedReadableCount > 0 { return (true, sending && writeInterest == .read) }
            var wanted = readInterest
            if sending { wanted.formUnion(writeInterest) }
            var events: Int16 = 0
            if wanted.contains(.read) { events |= Int16(POLLIN) }
            if wanted.contains(.write) { events |= Int16(POLLOUT) }
            var entry = pollfd(fd: stream.fileDescriptor, events: events, revents: 0)
            while true {
                let remaining = lastProgress + timeout - .now
                guard remaining > .zero else { throw HTTPExchangeError(.timedOut, "no progress within \(timeout)") }
                let ready = poll(&entry, 1, Int32(clamping: remaining.milliseconds))
                if ready < 0 && errno != EINTR { throw HTTPExchangeError(.failed, "poll failed: errno \(errno)") }
                guard ready > 0 else { continue }
                let failed = entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                let readable = failed || entry.revents & Int16(readInterest == .read ? POLLIN : POLLOUT) != 0
                let writable = failed || entry.revents & Int16(writeInterest == .write ? POLLOUT : POLLIN) != 0
                return (readable, writable)
            }
        }

        /// Reads what is there and feeds the parser. The events up to the end of the exchange are handled; what
        /// follows them in the same read is not this exchange's, even when it fails to parse (a server sending a body
        /// after its answer to a HEAD, say): the exchange ends as it would have with that read cut after the end.
        mutating func read(_ client: HTTPClientStream, onInterim: (ResponseHead) -> Bool) throws(HTTPExchangeError) {
            var events: [HTTP1Event] = []
            var failure: HTTPExchangeError?
            var atEnd = false
            do {
                switch try client.stream.read(into: client.readBuffer) {
                case .done(let count):
                    lastProgress = .now
                    readInterest = .read
                    let bytes = Array(UnsafeRawBufferPointer(rebasing: client.readBuffer[..<count]))
                    try client.parser.feed(bytes[...], into: &events)
                case .wouldBlock(let interest):
                    readInterest = interest
                    return
                case .endOfStream:
                    atEnd = true
                    events = try client.parser.finish()
                }
            } catch let error as HTTPWireError where error.code == .truncated {
                failure =
                    sendFailure ?? HTTPExchangeError(.closed, "the response was cut short: \(error)", wireError: error)
            } catch let error as HTTPWireError {
                failure = sendFailure ?? .malformed(error)
            } catch {
                failure = sendFailure ?? .stream(error)
            }
            for event in events where !ended { try handle(event, onInterim: onInterim) }
            guard !ended else { return }
            if let failure { throw failure }
            if atEnd { throw sendFailure ?? HTTPExchangeError(.closed, "the server closed the connection") }
        }

        mutating func handle(_ event: HTTP1Event, onInterim: (ResponseHead) -> Bool) throws(HTTPExchangeError) {
            switch event {
            case .responseHead(let head) where head.isInformational:
                if interims.count < HTTPResponse.interimLimit { interims.append(head) }
                guard onInterim(head) else { throw HTTPExchangeError(.cancelled, "the exchange was aborted") }
            case .responseHead(let head):
                final = head
                sending = false
            case .body(let bytes):
                onContent?(bytes)
                try bodyLimit.keep(bytes, in: &responseBody)
            case .end:
                ended = final != nil
            case .upgrade, .opaque, .requestHead:
                throw HTTPExchangeError(.notHTTP1, "the server left HTTP/1.1")
            }
        }

        /// Writes as much of the current buffer as the stream takes, refilling it from the body when empty.
        mutating func write(_ stream: any ByteStream, onBodySent: (Int) -> Bool) throws(HTTPExchangeError) {
            if outgoingOffset == outgoing.count {
                guard try refill() else {
                    sending = false
                    return
                }
            }
            let outcome: IOOutcome
            do {
                outcome = try outgoing.withUnsafeBytes { bytes in
                    try stream.write(UnsafeRawBufferPointer(rebasing: bytes[outgoingOffset...]))
                }
            } catch {
                // The server may have answered and closed (413, 401): read on for its final response.
                sendFailure = .stream(error)
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
                guard onBodySent(count) else { throw HTTPExchangeError(.cancelled, "the exchange was aborted") }
            case .wouldBlock(let interest):
                writeInterest = interest
            case .endOfStream:
                sendFailure = HTTPExchangeError(.closed, "the connection ended while sending")
                sending = false
            }
        }

        /// Loads the next body chunk into `outgoing`; false when the content is all sent.
        mutating func refill() throws(HTTPExchangeError) -> Bool {
            guard let body, bodySent < body.length else { return false }
            outgoingOffset = 0
            switch body.source {
            case .bytes(let bytes):
                outgoing = bytes
                return true
            case .file(let descriptor, let offset):
                let count = Int(min(Int64(max(body.chunkSize, 1)), body.length - bodySent))
                if outgoing.count != count { outgoing = [UInt8](repeating: 0, count: count) }
                let position = offset + bodySent
                let read = outgoing.withUnsafeMutableBytes { buffer in
                    pread(descriptor, buffer.baseAddress, count, off_t(position))
                }
                guard read > 0 else {
                    throw HTTPExchangeError(
                        .bodySourceFailed, "reading \(count) bytes at \(position) gave \(read) (errno \(errno))")
                }
                if read < count { outgoing.removeLast(count - read) }
                return true
            }
        }
    }
}
