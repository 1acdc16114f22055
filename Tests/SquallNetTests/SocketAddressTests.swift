import Glibc
import SquallNet
import Testing

struct SocketAddressTests {
    @Test func parsesIPv4WithPortZero() throws {
        let address = try SocketAddress(parsing: "127.0.0.1:0")
        #expect(address.host == "127.0.0.1")
        #expect(address.port == 0)
        #expect(address.family == AF_INET)
        #expect(address.isLoopback)
    }

    @Test func parsesBracketedIPv6() throws {
        let address = try SocketAddress(parsing: "[::1]:8080")
        #expect(address.host == "::1")
        #expect(address.port == 8080)
        #expect(address.family == AF_INET6)
        #expect(address.description == "[::1]:8080")
    }

    @Test func bareColonPortMeansIPv4Loopback() throws {
        let address = try SocketAddress(parsing: ":9000")
        #expect(address.description == "127.0.0.1:9000")
    }

    @Test func printsBackWhatItParsed() throws {
        #expect(try SocketAddress(parsing: "10.1.2.3:65535").description == "10.1.2.3:65535")
        #expect(try SocketAddress(parsing: "[2001:db8::7]:443").description == "[2001:db8::7]:443")
    }

    @Test func nonLoopbackIsNotLoopback() throws {
        #expect(try !SocketAddress(parsing: "10.0.0.1:80").isLoopback)
        #expect(try !SocketAddress(parsing: "[2001:db8::1]:80").isLoopback)
    }

    @Test func withPortKeepsTheHost() throws {
        let address = try SocketAddress(parsing: "[::1]:0").with(port: 4433)
        #expect(address.description == "[::1]:4433")
    }

    @Test(arguments: [
        "127.0.0.1:65536",  // port out of range
        "127.0.0.1:-1",  // negative port
        "127.0.0.1:+80",  // a sign is not a digit
        "127.0.0.1:http",  // not a number
        "127.0.0.1:",  // empty port
        "127.0.0.1",  // missing colon
        "",  // nothing at all
        "[::1]",  // IPv6 without a port
        "[::1]8080",  // no colon after the bracket
        "[::1:8080",  // unclosed bracket
        "300.1.1.1:80",  // not an address
    ])
    func rejectsMalformedText(_ text: String) {
        #expect {
            try SocketAddress(parsing: text)
        } throws: { error in
            (error as? NetError)?.code == .invalidAddress
        }
    }
}
