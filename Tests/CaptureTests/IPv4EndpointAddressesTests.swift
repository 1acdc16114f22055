import Capture
import Glibc
import PacketSynthesis
import Testing

/// Endpoints for the capture from the addresses sockets report.
struct IPv4EndpointAddressesTests {
    @Test(arguments: [
        ("127.0.0.1:8080", IPv4Endpoint(127, 0, 0, 1, port: 8080)),
        ("[::1]:443", IPv4Endpoint(127, 0, 0, 1, port: 443)),
        ("[::ffff:10.1.2.3]:5", IPv4Endpoint(10, 1, 2, 3, port: 5)),
        ("localhost:0", IPv4Endpoint(127, 0, 0, 1, port: 0)),
        ("192.168.0.254:65535", IPv4Endpoint(192, 168, 0, 254, port: 65_535)),
    ])
    func parsesHostAndPort(text: String, expected: IPv4Endpoint) throws {
        #expect(try IPv4Endpoint(parsing: text) == expected)
    }

    @Test(arguments: ["[2001:db8::1]:80", "127.0.0.1", "127.0.0.1:65536", "example.org:80", ":80", "[::1]:x"])
    func rejectsWhatHasNoIPv4Form(text: String) {
        #expect {
            try IPv4Endpoint(parsing: text)
        } throws: { error in
            (error as? CaptureError)?.code == .invalidAddress
        }
    }

    @Test func readsSocketAddresses() throws {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = UInt16(4433).bigEndian
            _ = inet_pton(AF_INET6, "::1", &sin6.sin6_addr)
            raw.storeBytes(of: sin6, as: sockaddr_in6.self)
        }
        #expect(try IPv4Endpoint(socketAddress: storage) == IPv4Endpoint(127, 0, 0, 1, port: 4433))
        withUnsafeMutableBytes(of: &storage) { raw in
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(80).bigEndian
            _ = inet_pton(AF_INET, "172.16.5.4", &sin.sin_addr)
            raw.storeBytes(of: sin, as: sockaddr_in.self)
        }
        #expect(try IPv4Endpoint(socketAddress: storage) == IPv4Endpoint(172, 16, 5, 4, port: 80))
        storage.ss_family = sa_family_t(AF_UNIX)
        #expect(throws: CaptureError.self) { try IPv4Endpoint(socketAddress: storage) }
    }

    @Test func ipv6WithoutIPv4FormSaysSo() {
        do {
            _ = try IPv4Endpoint(parsing: "[fe80::2]:1")
            Issue.record("parsed an IPv6 address with no IPv4 form")
        } catch {
            #expect(error.detail == "IPv6 address fe80::2 has no IPv4 form; the capture is IPv4 only")
        }
    }
}
