import CSystem
import Glibc

/// An IPv4 or IPv6 socket address (host and port), as the kernel sees it.
///
/// Parse one from `"127.0.0.1:8080"`, `"[::1]:0"` or `"localhost:443"`; print it back with `description`.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric host, e.g. `127.0.0.1` or `::1`.
    public let host: String
    public let port: UInt16
    public let family: Int32

    /// An address from a numeric host and a port.
    public init(host: String, port: UInt16) throws {
        let probe = try SocketAddress.resolve(host: host, port: port)
        self = probe
    }

    /// Parses `host:port`, `[v6]:port` or a bare `:port` (meaning 127.0.0.1).
    public init(parsing text: String) throws {
        let (host, portText): (String, Substring)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"),
                text[text.index(after: close)...].hasPrefix(":")
            else {
                throw NetError(.invalidAddress, "'\(text)': expected [IPv6]:PORT")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw NetError(.invalidAddress, "'\(text)': expected HOST:PORT")
            }
            let bare = text[..<colon]
            host = bare.isEmpty ? "127.0.0.1" : String(bare)
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(portText) else {
            throw NetError(.invalidAddress, "'\(text)': port must be a number from 0 to 65535")
        }
        try self.init(host: host, port: port)
    }

    init(storage: sockaddr_storage) {
        var storage = storage
        var hostBuffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var portValue: UInt16 = 0
        if storage.ss_family == sa_family_t(AF_INET6) {
            withUnsafePointer(to: &storage) { raw in
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var address = sin6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &address, &hostBuffer, socklen_t(hostBuffer.count))
                    portValue = UInt16(bigEndian: sin6.pointee.sin6_port)
                }
            }
            self.family = AF_INET6
        } else {
            withUnsafePointer(to: &storage) { raw in
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var address = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &address, &hostBuffer, socklen_t(hostBuffer.count))
                    portValue = UInt16(bigEndian: sin.pointee.sin_port)
                }
            }
            self.family = AF_INET
        }
        self.host = hostBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.port = portValue
    }

    /// The same host with another port.
    public func with(port: UInt16) -> SocketAddress {
        // A numeric host always re-resolves to itself.
        (try? SocketAddress(host: host, port: port)) ?? self
    }

    /// Whether the address is on the loopback network (127.0.0.0/8 or ::1).
    public var isLoopback: Bool {
        family == AF_INET6 ? host == "::1" : host.hasPrefix("127.")
    }

    public var description: String {
        family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Calls `body` with this address as a `sockaddr` pointer and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        if family == AF_INET6 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &sin6.sin6_addr)
            return try withUnsafePointer(to: &sin6) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &sin.sin_addr)
        return try withUnsafePointer(to: &sin) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    private static func resolve(host: String, port: UInt16) throws -> SocketAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw NetError(.invalidAddress, "'\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { out in
            out.copyMemory(
                from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        return SocketAddress(storage: storage)
    }
}
