import Glibc
import PacketSynthesis

extension IPv4Endpoint {
    /// The endpoint a synthesized packet shows for a socket address. The capture is IPv4 only: `::1` becomes
    /// `127.0.0.1` and an IPv4-mapped address (`::ffff:a.b.c.d`) its IPv4 address; other IPv6 addresses throw.
    public init(socketAddress: sockaddr_storage) throws(CaptureError) {
        var storage = socketAddress
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            self.init(address: UInt32(bigEndian: sin.sin_addr.s_addr), port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            self.init(address: try Self.ipv4Form(of: sin6.sin6_addr), port: UInt16(bigEndian: sin6.sin6_port))
        default:
            throw CaptureError(.invalidAddress, "address family \(storage.ss_family) is neither IPv4 nor IPv6")
        }
    }

    /// Parses a numeric `host:port` or `[ipv6]:port` (as `SocketAddress.description` prints it); `localhost`
    /// is `127.0.0.1`. IPv6 hosts map as in `init(socketAddress:)`.
    public init(parsing text: String) throws(CaptureError) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw CaptureError(.invalidAddress, "'\(text)': expected HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            self.init(address: UInt32(bigEndian: ipv4.s_addr), port: port)
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            self.init(address: try Self.ipv4Form(of: ipv6), port: port)
        } else {
            throw CaptureError(.invalidAddress, "'\(text)': the host is not a numeric IPv4 or IPv6 address")
        }
    }

    /// `::1` → 127.0.0.1, `::ffff:a.b.c.d` → a.b.c.d.
    private static func ipv4Form(of address: in6_addr) throws(CaptureError) -> UInt32 {
        let octets = withUnsafeBytes(of: address) { Array($0) }
        let tail = octets[12...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if octets[..<15].allSatisfy({ $0 == 0 }) && octets[15] == 1 { return 0x7F00_0001 }
        if octets[..<10].allSatisfy({ $0 == 0 }) && octets[10] == 0xFF && octets[11] == 0xFF { return tail }
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
        let printed = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw CaptureError(.invalidAddress, "IPv6 address \(printed) has no IPv4 form; the capture is IPv4 only")
    }
}
