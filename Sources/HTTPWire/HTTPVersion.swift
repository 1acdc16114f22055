/// An HTTP version as it appears on the wire, `HTTP/<major>.<minor>` with one digit each (RFC 9112 §2.3).
public struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http11 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2 (RFC 9113), which has no start line: the version of heads read from or written to HTTP/2 streams.
    public static let http2 = HTTPVersion(major: 2, minor: 0)

    public static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// `HTTP/1.1`; `HTTP/2` for HTTP/2, which has no minor version.
    public var description: String {
        major == 2 && minor == 0 ? "HTTP/2" : "HTTP/\(major).\(minor)"
    }

    /// Parses the 8 bytes `HTTP/D.D`; nil for anything else.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPVersion? {
        guard bytes.count == 8, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50,
            bytes[4] == 0x2F, bytes[6] == 0x2E, ByteClass.isDigit(bytes[5]), ByteClass.isDigit(bytes[7])
        else { return nil }
        return HTTPVersion(major: Int(bytes[5] &- 0x30), minor: Int(bytes[7] &- 0x30))
    }
}
