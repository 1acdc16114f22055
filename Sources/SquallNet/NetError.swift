import Glibc

/// An error from the socket layer: a stable `code`, the `errno` that caused it (0 when none) and what was being done.
///
/// Compare on `code`; the `detail` is for people.
public struct NetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable identity of a socket-layer failure.
    public enum Code: String, Sendable {
        case invalidAddress
        case socket
        case bind
        case listen
        case accept
        case listenerClosed
        case connect
        case connectTimeout
        case connectionRefused
        case connectionReset
        case brokenPipe
        case read
        case write
        case poll
        case timeout
        case closed
        /// A command could not be started (`CommandRun`).
        case spawn
        /// A temporary folder could not be made (`TemporaryFolder`).
        case folder
    }

    public var code: Code
    public var errno: Int32
    public var detail: String

    public init(_ code: Code, errno: Int32 = 0, _ detail: String) {
        self.code = code
        self.errno = errno
        self.detail = detail
    }

    /// Builds the error for a failed system call from the current `errno`.
    static func system(_ code: Code, _ call: String, errno value: Int32 = Glibc.errno) -> NetError {
        var mapped = code
        switch value {
        case ECONNREFUSED: mapped = .connectionRefused
        case ECONNRESET: mapped = .connectionReset
        case EPIPE: mapped = .brokenPipe
        default: break
        }
        return NetError(mapped, errno: value, "\(call): \(String(cString: strerror(value)))")
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}
