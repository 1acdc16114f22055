import ControlAPI
import HTTPWire
import SquallNet

/// One control-API connection on its own thread: reads requests with `HTTP1Parser(role: .server)`, collects each
/// body up to the handler's `maxBodyBytes`, answers through `ControlAPIHandler.handle`, and keeps the connection
/// alive while both sides allow it (RFC 9112 §9.3).
///
///     head ──▶ Content-Length > max? ──413, close
///       │──▶ Expect: 100-continue? ──▶ 100 Continue
///       └──▶ body (> max ──413, close) ──▶ handle ──▶ response ──▶ keep-alive? next head : close
///     malformed bytes anywhere ──400, close        peer gone or silent ──close
struct ControlConnection {
    /// How long a kept-alive connection may wait for its next request head. Default 60 s.
    static let idleTimeout: Duration = .seconds(60)
    /// How long a body may pause between reads, and a response wait to be written. Default 10 s.
    static let ioTimeout: Duration = .seconds(10)
    /// Bytes read per call.
    static let bufferSize = 16 * 1024

    /// Why a connection stops before its exchange completes.
    enum Failure: Error {
        /// Not HTTP/1.1 as the parser accepts it: 400.
        case malformed(HTTPWireError)
        /// The body exceeds the limit: 413.
        case tooLarge(Int)
        /// The peer closed, reset or went silent mid-request: closed without a response.
        case interrupted
    }

    let stream: PlainStream
    let handler: ControlAPIHandler
    private var parser = HTTP1Parser(role: .server)
    private var events: [HTTP1Event] = []
    private var eventIndex = 0
    /// A parse error, thrown once the events parsed before it have been taken.
    private var parseFailure: HTTPWireError?

    init(stream: PlainStream, handler: ControlAPIHandler) {
        self.stream = stream
        self.handler = handler
    }

    /// Serves requests until the connection ends.
    mutating func run() {
        do {
            while let head = try nextHead() {
                guard try exchange(head) else { break }
            }
        } catch .malformed(let error) {
            refuse(ControlAPIError(.badRequest, "malformed HTTP request: \(error.detail)"))
        } catch .tooLarge(let limit) {
            refuse(ControlAPIError(.bodyTooLarge, "request body over \(limit) bytes"))
        } catch {
            return
        }
    }

    /// Reads the body of `head`, answers it; returns whether the connection stays open.
    private mutating func exchange(_ head: RequestHead) throws(Failure) -> Bool {
        let limit = handler.configuration.maxBodyBytes
        if let declared = head.fields["Content-Length"].flatMap({ Int($0) }), declared > limit {
            throw .tooLarge(limit)
        }
        if head.fields["Expect"]?.lowercased() == "100-continue" {
            try send(ResponseHead(status: 100, reason: "Continue"), [])
        }
        var body: [UInt8] = []
        while true {
            switch try nextEvent(timeout: Self.ioTimeout) {
            case .body(let bytes):
                guard body.count + bytes.count <= limit else { throw .tooLarge(limit) }
                body.append(contentsOf: bytes)
            case .end:
                let keepAlive = head.keepAlive && parser.keepAlive
                var (response, content) = handler.handle(head, body: body)
                if !keepAlive { response.fields.append(name: "Connection", value: "close") }
                try send(response, content)
                return keepAlive
            case nil:
                throw .interrupted
            default:
                continue
            }
        }
    }

    /// The next request head; nil when the peer closes or stays idle between requests.
    private mutating func nextHead() throws(Failure) -> RequestHead? {
        while true {
            switch try nextEvent(timeout: Self.idleTimeout) {
            case .requestHead(let head): return head
            case nil: return nil
            default: continue
            }
        }
    }

    /// The next parser event, reading as needed; nil at the end of the stream or when `timeout` passes.
    private mutating func nextEvent(timeout: Duration) throws(Failure) -> HTTP1Event? {
        while eventIndex >= events.count {
            if let parseFailure { throw .malformed(parseFailure) }
            var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
            let deadline = ContinuousClock.now.advanced(by: timeout)
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
            } catch {
                return nil
            }
            if count == 0 { return nil }
            events.removeAll(keepingCapacity: true)
            eventIndex = 0
            do {
                try parser.feed(buffer[..<count], into: &events)
            } catch {
                parseFailure = error
            }
        }
        defer { eventIndex += 1 }
        return events[eventIndex]
    }

    private func send(_ head: ResponseHead, _ body: [UInt8]) throws(Failure) {
        do {
            var bytes = try HTTP1Serializer.serialize(head)
            bytes += body
            try stream.writeAll(bytes, deadline: .now.advanced(by: Self.ioTimeout))
        } catch {
            throw .interrupted
        }
    }

    /// Answers `error` with `Connection: close`, then closes gracefully: ends the write side and drops what the
    /// peer still sends (at most 1 MiB, for at most a second) so that the unread rest of its request does not reset
    /// the connection before the peer has read the response.
    private func refuse(_ error: ControlAPIError) {
        var (head, body) = ControlAPIHandler.response(for: error)
        head.fields.append(name: "Connection", value: "close")
        do {
            try send(head, body)
            let deadline = ContinuousClock.now.advanced(by: .seconds(1))
            try stream.shutdownWrite(deadline: deadline)
            var drained = 0
            var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
            while drained < 1 << 20 {
                let count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
                if count == 0 { return }
                drained += count
            }
        } catch {
            return
        }
    }
}
