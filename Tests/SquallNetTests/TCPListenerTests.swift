import SquallNet
import TestSupport
import Testing

struct TCPListenerTests {
    @Test(arguments: ["127.0.0.1:0", "[::1]:0"])
    func portZeroReportsTheBoundPort(_ text: String) throws {
        let listener = try TCPListener(text)
        defer { listener.close() }
        #expect(listener.address.port != 0)
        #expect(listener.address.host == (try SocketAddress(parsing: text)).host)
    }

    @Test(arguments: ["127.0.0.1:0", "[::1]:0"])
    func acceptsAConnectionAndSeesItsBytes(_ text: String) throws {
        let listener = try TCPListener(text)
        defer { listener.close() }
        let client = try TCPConnector.connect(to: listener.address, timeout: .seconds(5))
        let accepted = try listener.accept()
        #expect(try accepted.peerAddress() == client.localAddress())
        #expect(try accepted.localAddress() == listener.address)

        try PlainStream(socket: client).writeAll(Array("ping".utf8), deadline: .now + .seconds(5))
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes {
            try PlainStream(socket: accepted).readSome(into: $0, deadline: .now + .seconds(5))
        }
        #expect(Array(buffer[..<count]) == Array("ping".utf8))
    }

    @Test func bindingAPortInUseFails() throws {
        let first = try TCPListener("127.0.0.1:0")
        defer { first.close() }
        #expect {
            try TCPListener(address: first.address)
        } throws: { error in
            (error as? NetError)?.code == .bind
        }
    }

    @Test func closeWakesABlockedAccept() throws {
        let listener = try TCPListener("127.0.0.1:0")
        let outcomes = Mailbox<NetError.Code?>()
        let acceptor = ConnectionThread(name: "test-accept") {
            for _ in 0..<2 {
                do {
                    _ = try listener.accept()
                    outcomes.put(nil)
                } catch {
                    outcomes.put((error as? NetError)?.code)
                }
            }
        }
        // The first accept succeeds; the acceptor then blocks in the second until close() wakes it.
        let client = try TCPConnector.connect(to: listener.address, timeout: .seconds(5))
        #expect(outcomes.take() == .some(nil))
        listener.close()
        #expect(outcomes.take() == .listenerClosed)
        #expect(acceptor.join(timeout: .seconds(5)))
        client.close()
    }

    @Test func acceptAfterCloseFailsAndThePortIsFreed() throws {
        let listener = try TCPListener("127.0.0.1:0")
        listener.close()
        listener.close()
        #expect {
            try listener.accept()
        } throws: { error in
            (error as? NetError)?.code == .listenerClosed
        }
        let again = try TCPListener(address: listener.address)
        again.close()
    }
}
