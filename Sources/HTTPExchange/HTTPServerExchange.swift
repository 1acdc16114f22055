import HTTPWire
import SquallNet

/// The server's side of request exchanges, whatever carries them: an HTTP/1.1 connection (`HTTPServerStream`, one
/// request after another) or one HTTP/2 stream (`HTTP2ServerExchange`, one request). A server written against it
/// serves both.
public protocol HTTPServerExchange: AnyObject {
    /// The first request head, whole by `deadline`; nil when the peer went away before sending one.
    func firstHead(by deadline: ContinuousClock.Instant) throws(HTTPExchangeError) -> RequestHead?
    /// The next request head on the same exchange; nil when there is none (always, for an HTTP/2 stream).
    func nextHead(idleTimeout: Duration, headTimeout: Duration) throws(HTTPExchangeError) -> RequestHead?
    /// The next part of the current request's body, waiting at most `timeout` for it.
    func nextBodyPart(timeout: Duration) throws(HTTPExchangeError) -> HTTPServerStream.BodyPart
    /// Sends a response head (interim or final) and, with a final one, its whole content.
    func send(_ head: ResponseHead, body: [UInt8], timeout: Duration) throws
    /// Ends the exchange politely once its last response went out.
    func finish()
}

/// What carries a request's body, as another request sees it: whether its peer has gone, and a way to end it (a
/// later request taking over an upload ends the one streaming into it).
public protocol ExchangeChannel: AnyObject, Sendable {
    /// Whether the peer has ended it (its FIN or RST, or `RST_STREAM`), whatever is still unread.
    var peerHasClosed: Bool { get }
    /// Ends it now in both directions: the thread reading from it sees its end.
    func interrupt()
}

extension Socket: ExchangeChannel {
    public func interrupt() {
        shutdown(reading: true, writing: true)
    }
}

extension HTTPServerStream: HTTPServerExchange {
    public func finish() {
        drainBeforeClose()
    }
}
