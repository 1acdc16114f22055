import Glibc
import SquallNet
import TestSupport
import Testing

struct TCPConnectorTests {
    @Test(arguments: ["127.0.0.1:0", "[::1]:0"])
    func connectsOverIPv4AndIPv6(_ text: String) throws {
        let listener = try TCPListener(text)
        defer { listener.close() }
        let client = try TCPConnector.connect(to: listener.address, timeout: .seconds(5))
        let accepted = try listener.accept()
        #expect(try client.peerAddress() == listener.address)
        #expect(try accepted.peerAddress() == client.localAddress())
    }

    @Test func connectsFromText() throws {
        let listener = try TCPListener("127.0.0.1:0")
        defer { listener.close() }
        let client = try TCPConnector.connect(listener.address.description, timeout: .seconds(5))
        #expect(try client.peerAddress().port == listener.address.port)
    }

    @Test func aClosedPortRefuses() throws {
        // A socket bound but not listening keeps the port ours, so the refusal is certain.
        let bound = try Socket.tcp(family: AF_INET)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(bound.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(status == 0)
        #expect {
            try TCPConnector.connect(to: bound.localAddress(), timeout: .seconds(5))
        } throws: { error in
            (error as? NetError)?.code == .connectionRefused
        }
    }

    /// With a listen backlog of 0 the kernel queues one unaccepted connection and then drops further SYNs, so
    /// a connect waits for an answer that never comes.
    @Test func anUnansweredConnectTimesOut() throws {
        let listener = try TCPListener(address: SocketAddress(parsing: "127.0.0.1:0"), backlog: 0)
        defer { listener.close() }
        var queued: [Socket] = []
        var codes: [NetError.Code] = []
        let started = ContinuousClock.now
        for _ in 0..<4 where codes.isEmpty {
            do {
                queued.append(try TCPConnector.connect(to: listener.address, timeout: .milliseconds(200)))
            } catch let error as NetError {
                codes.append(error.code)
            }
        }
        #expect(codes == [.connectTimeout])
        #expect(queued.count >= 1 && queued.count <= 2)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test func millisecondsRoundUp() {
        #expect(Duration.milliseconds(200).milliseconds == 200)
        #expect(Duration.microseconds(1).milliseconds == 1)
        #expect(Duration.seconds(2).milliseconds == 2000)
        #expect(Duration.zero.milliseconds == 0)
    }
}
