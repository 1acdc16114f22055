import HTTPWire
import SquallNet

/// Why an HTTP exchange over a `ByteStream` stopped; compare on `code`.
public struct HTTPExchangeError: Error, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// A request head began but was not complete within its head deadline (a server answers 408).
        case headTimeout
        /// Nothing arrived, or nothing could be written, within the wait.
        case timedOut
        /// The peer ended its stream before the message did.
        case closed
        /// The peer reset the connection.
        case reset
        /// The bytes are not HTTP/1.1 as `HTTP1Parser` accepts them (`wireError` says how).
        case malformed
        /// A body is larger than the limit the caller set.
        case bodyTooLarge
        /// The peer switched protocols or sent a message of the wrong role.
        case notHTTP1
        /// The request body's source could not be read.
        case bodySourceFailed
        /// The request head cannot be serialized.
        case invalidRequest
        /// A callback asked to stop.
        case cancelled
        /// The peer did not process the request (an HTTP/2 stream above a `GOAWAY`'s last stream, or reset with
        /// `REFUSED_STREAM`; a connection that takes no new stream): it may be sent again, on another connection.
        case refused
        /// Another read or write failure (`underlying` is the stream's error).
        case failed
    }

    public let code: Code
    public let detail: String
    /// The parser's error, for `malformed`.
    public let wireError: HTTPWireError?
    /// The stream's own error (`NetError`, `TLSError`), when one caused this.
    public let underlying: (any Error)?

    public init(_ code: Code, _ detail: String, wireError: HTTPWireError? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.wireError = wireError
        self.underlying = underlying
    }

    public var description: String { detail }

    /// A short reason for logs: `timeout`, `reset`, `eof`, `malformed`, else the detail.
    public var reason: String {
        switch code {
        case .timedOut, .headTimeout: "timeout"
        case .reset: "reset"
        case .closed: "eof"
        case .malformed: "malformed"
        default: detail
        }
    }

    static func malformed(_ error: HTTPWireError) -> HTTPExchangeError {
        HTTPExchangeError(.malformed, "malformed HTTP: \(error)", wireError: error)
    }

    /// The error for a failed stream call: `timedOut` and `reset` for those `NetError`s, else `failed`.
    static func stream(_ error: any Error) -> HTTPExchangeError {
        if let error = error as? HTTPExchangeError { return error }
        let code: Code =
            switch (error as? NetError)?.code {
            case .timeout: .timedOut
            case .connectionReset: .reset
            default: .failed
            }
        return HTTPExchangeError(code, "\(error)", underlying: error)
    }
}
