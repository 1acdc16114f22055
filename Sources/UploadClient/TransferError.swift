import HTTPExchange
import HTTPWire
import SquallNet
import TLSKit

/// Why a transfer did not succeed: a stable `code` (named as the system uploader's errors are) and a human
/// `detail`; compare on the code.
///
/// Transient codes (`timedOut`, `networkConnectionLost`, `cannotConnectToHost`) mean "try again later": the job
/// model retries them. The others are permanent verdicts about this upload.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable identity of a transfer failure.
    public enum Code: String, Sendable, Hashable, Codable {
        /// No byte moved within the read timeout (or the connect timeout).
        case timedOut
        /// The connection ended (FIN, RST, TLS truncation) before the final response.
        case networkConnectionLost
        /// The TCP connection could not be opened (refused, unreachable).
        case cannotConnectToHost
        /// The TLS handshake failed (untrusted certificate, wrong host name, protocol error).
        case secureConnectionFailed
        /// The final response was not a 2xx (other than 401/403), was malformed, or broke the resumable-upload
        /// rules (a changed `Location`, an impossible offset).
        case badServerResponse
        /// The final response was 401 or 403.
        case userAuthenticationRequired
        /// The transfer was cancelled by its owner.
        case cancelled
        /// The file to upload could not be opened or read.
        case fileUnreadable
        /// The request could not be built (a malformed URL or header field).
        case invalidRequest
    }

    public var code: Code
    public var detail: String
    /// Whether the server is known not to have processed the request (an HTTP/2 stream a `GOAWAY` or
    /// `REFUSED_STREAM` refused): it is sent again on a new connection, and does not count as a failure.
    public var unprocessed = false

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Whether a later retry may succeed: `timedOut`, `networkConnectionLost` and `cannotConnectToHost`.
    public var isTransient: Bool {
        switch code {
        case .timedOut, .networkConnectionLost, .cannotConnectToHost: true
        default: false
        }
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    /// What a person can do about it, when there is something obvious.
    public var hint: String? {
        switch code {
        case .secureConnectionFailed:
            "trust the server's CA with --ca FILE, the PEM certificate that signed the server's (squall proxy prints "
                + "the path of its ca.pem)"
        case .cannotConnectToHost: "check that the server runs and listens at that address (--to)"
        case .userAuthenticationRequired: "give the client a token: --token, --token-url or --token-command"
        case .timedOut: "a slow server needs a longer --read-timeout or --connect-timeout"
        default: nil
        }
    }

    /// The detail and, when there is one, the hint: what a person reads.
    public var explanation: String {
        hint.map { "\(detail); \($0)" } ?? detail
    }

    /// The transfer error for a socket, TLS or HTTP parsing failure; `connecting` tells a failed connect apart.
    static func mapping(_ error: any Error, connecting: Bool = false) -> TransferError {
        switch error {
        case let error as TransferError:
            return error
        case let error as NetError:
            switch error.code {
            case .timeout, .connectTimeout: return TransferError(.timedOut, error.description)
            case _ where connecting: return TransferError(.cannotConnectToHost, error.description)
            default: return TransferError(.networkConnectionLost, error.description)
            }
        case let error as TLSError:
            switch error.code {
            case .timeout: return TransferError(.timedOut, error.description)
            case .unexpectedEOF, .io: return TransferError(.networkConnectionLost, error.description)
            default: return TransferError(.secureConnectionFailed, error.description)
            }
        case let error as HTTPExchangeError:
            if let cause = error.underlying ?? (error.code == .invalidRequest ? nil : error.wireError) {
                return mapping(cause)
            }
            switch error.code {
            case .timedOut, .headTimeout: return TransferError(.timedOut, error.detail)
            case .cancelled: return TransferError(.cancelled, error.detail)
            case .invalidRequest: return TransferError(.invalidRequest, error.detail)
            case .bodySourceFailed: return TransferError(.fileUnreadable, error.detail)
            case .notHTTP1, .bodyTooLarge, .malformed: return TransferError(.badServerResponse, error.detail)
            case .closed, .reset, .failed: return TransferError(.networkConnectionLost, error.detail)
            case .refused:
                var refused = TransferError(.networkConnectionLost, error.detail)
                refused.unprocessed = true
                return refused
            }
        case let error as HTTPWireError where error.code == .truncated:
            return TransferError(.networkConnectionLost, "the response was cut short: \(error)")
        case let error as HTTPWireError:
            return TransferError(.badServerResponse, "malformed response: \(error)")
        default:
            return TransferError(.networkConnectionLost, "\(error)")
        }
    }
}
