import Glibc

/// An error opening the server's request log: a stable `code`, the file, the `errno` behind it and a human
/// `detail` naming the file.
///
/// Compare on `code`; the `detail` is for people.
public struct ServerLogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable identity of a log failure.
    public enum Code: String, Sendable {
        /// The file could not be opened for appending (missing folder, a folder in its place, no permission).
        case cannotOpen
    }

    public var code: Code
    /// The log file concerned.
    public var path: String
    public var errno: Int32
    public var detail: String

    public init(_ code: Code, path: String, errno: Int32 = 0, _ detail: String) {
        self.code = code
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}
