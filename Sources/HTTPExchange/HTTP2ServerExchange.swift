import Foundation
import HTTP2Wire
import HTTPWire
import SquallNet

/// One request stream of an `HTTP2ServerConnection`, as its handler thread serves it: the request head, its content
/// as it arrives (each part taken reopens the stream's window by as much), and the responses, interim ones (104s as
/// `HEADERS` frames) and the final one.
///
/// Another request of the same upload sees it as an `ExchangeChannel`: `peerHasClosed` once the client reset the
/// stream or the connection ended, and `interrupt` resets it (`RST_STREAM` `CANCEL`).
public final class HTTP2ServerExchange: HTTPServerExchange, ExchangeChannel, @unchecked Sendable {
    /// The stream's id on its connection.
    public let stream: Int32
    private let connection: HTTP2ServerConnection
    private var head: RequestHead?
    // Guarded by the connection's lock.
    private var content: [[UInt8]] = []
    private var contentIndex = 0
    private var contentEnd = false
    private var resetCode: HTTP2ErrorCode?
    private var gone = false
    private var finalSent = false

    init(connection: HTTP2ServerConnection, stream: Int32, head: RequestHead, ended: Bool) {
        self.connection = connection
        self.stream = stream
        self.head = head
        self.contentEnd = ended
    }

    // MARK: HTTPServerExchange

    /// The stream's request head (the connection read it whole before the stream began).
    public func firstHead(by deadline: ContinuousClock.Instant) throws(HTTPExchangeError) -> RequestHead? {
        defer { head = nil }
        return head
    }

    /// None: an HTTP/2 stream carries one request.
    public func nextHead(idleTimeout: Duration, headTimeout: Duration) throws(HTTPExchangeError) -> RequestHead? {
        nil
    }

    public func nextBodyPart(timeout: Duration) throws(HTTPExchangeError) -> HTTPServerStream.BodyPart {
        let deadline = Date(timeIntervalSinceNow: timeout / .seconds(1))
        let condition = connection.condition
        condition.lock()
        defer { condition.unlock() }
        while true {
            if contentIndex < content.count {
                let bytes = content[contentIndex]
                content[contentIndex] = []
                contentIndex += 1
                if contentIndex == content.count {
                    content.removeAll(keepingCapacity: true)
                    contentIndex = 0
                }
                connection.session.consume(bytes.count, on: stream)
                connection.poke()
                return .data(bytes[...])
            }
            if contentEnd { return .end }
            if let resetCode {
                throw HTTPExchangeError(.reset, "the client reset stream \(stream) (\(resetCode))")
            }
            if gone { throw HTTPExchangeError(.closed, "the connection of stream \(stream) ended inside its content") }
            if !condition.wait(until: deadline) {
                throw HTTPExchangeError(.timedOut, "no content on stream \(stream) within the timeout")
            }
        }
    }

    /// Queues a response head (an interim one goes as its own `HEADERS` frame) and, with a final one, its content;
    /// `timeout` is unused (the connection's thread writes). Throws once the stream is gone.
    public func send(_ head: ResponseHead, body: [UInt8], timeout: Duration) throws {
        try connection.locked {
            if gone || resetCode != nil || finalSent {
                throw HTTPExchangeError(.closed, "stream \(stream) is closed")
            }
            let fields = HTTP2Heads.fields(of: head)
            if head.isInformational {
                try connection.session.submitResponse(fields, on: stream, endStream: false)
            } else {
                finalSent = true
                try connection.session.submitResponse(fields, on: stream, endStream: body.isEmpty)
                if !body.isEmpty {
                    connection.session.send(body, on: stream)
                    connection.session.end(stream)
                }
            }
        }
        connection.poke()
    }

    /// Nothing to do: the connection's thread writes what was queued.
    public func finish() {}

    // MARK: ExchangeChannel

    public var peerHasClosed: Bool {
        connection.locked { resetCode != nil || gone }
    }

    public func interrupt() {
        connection.locked {
            guard !gone else { return }
            gone = true
            connection.session.reset(stream, code: .cancel)
            connection.condition.broadcast()
        }
        connection.poke()
    }

    // MARK: From the connection (under its lock)

    func received(_ bytes: [UInt8]) {
        content.append(bytes)
    }

    func contentEnded() {
        contentEnd = true
    }

    func resetByPeer(_ code: HTTP2ErrorCode) {
        resetCode = code
    }

    func closed(_ code: HTTP2ErrorCode) {
        gone = true
        if code != .noError && resetCode == nil { resetCode = code }
    }

    /// The connection ended (under its lock).
    func connectionEnded() {
        gone = true
    }

    /// The handler returned: a stream left without a final response is reset (the client must not wait for one),
    /// and content the client still sends is refused (RFC 9113 §8.1: `RST_STREAM` `NO_ERROR` after a whole response).
    func handlerReturned() {
        connection.locked {
            guard !gone, resetCode == nil else { return }
            if !finalSent {
                connection.session.reset(stream, code: .internalError)
            } else if !contentEnd {
                connection.session.reset(stream, code: .noError, afterEnd: true)
            }
        }
        connection.poke()
    }
}
