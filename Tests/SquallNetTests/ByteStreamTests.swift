import SquallNet
import TestSupport
import Testing

/// The blocking conveniences (`ByteStream+Blocking.swift`).
struct ByteStreamTests {
    /// A connected pair of non-blocking plain streams.
    private func pair() throws -> (client: PlainStream, server: PlainStream) {
        let listener = try TCPListener("127.0.0.1:0")
        defer { listener.close() }
        let client = try TCPConnector.connect(to: listener.address, timeout: .seconds(5))
        let server = try listener.accept()
        try client.setNonBlocking(true)
        try server.setNonBlocking(true)
        return (PlainStream(socket: client), PlainStream(socket: server))
    }

    @Test func readSomeTimesOutWhenNothingArrives() throws {
        let (client, server) = try pair()
        defer { withExtendedLifetime(server) {} }
        var buffer = [UInt8](repeating: 0, count: 8)
        let started = ContinuousClock.now
        #expect {
            try buffer.withUnsafeMutableBytes { try client.readSome(into: $0, deadline: .now + .milliseconds(50)) }
        } throws: { error in
            (error as? NetError)?.code == .timeout
        }
        #expect(ContinuousClock.now - started >= .milliseconds(50))
    }

    @Test func writeAllTimesOutWhenThePeerDoesNotRead() throws {
        let (client, server) = try pair()
        defer { withExtendedLifetime(server) {} }
        let big = [UInt8](repeating: 7, count: 64 << 20)
        #expect {
            try client.writeAll(big, deadline: .now + .milliseconds(100))
        } throws: { error in
            (error as? NetError)?.code == .timeout
        }
    }

    @Test func readToEndReturnsEverythingUntilEndOfStream() throws {
        let (client, server) = try pair()
        let message = BytePattern(seed: 4).bytes(200_000)
        let socket = client.socket
        let writer = ConnectionThread(name: "test-writer") {
            let stream = PlainStream(socket: socket)
            try? stream.writeAll(message, deadline: .now + .seconds(20))
            try? stream.shutdownWrite(deadline: .now + .seconds(20))
        }
        #expect(try server.readToEnd(limit: 200_000, deadline: .now + .seconds(20)) == message)
        writer.join()
    }

    @Test func readToEndRefusesMoreThanTheLimit() throws {
        let (client, server) = try pair()
        try client.writeAll([UInt8](repeating: 1, count: 101), deadline: .now + .seconds(5))
        try client.shutdownWrite(deadline: .now + .seconds(5))
        #expect {
            try server.readToEnd(limit: 100, deadline: .now + .seconds(5))
        } throws: { error in
            (error as? NetError)?.code == .read
        }
    }

    @Test func readSomeReturnsZeroAtEndOfStream() throws {
        let (client, server) = try pair()
        try client.shutdownWrite(deadline: .now + .seconds(5))
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = try buffer.withUnsafeMutableBytes { try server.readSome(into: $0, deadline: .now + .seconds(5)) }
        #expect(count == 0)
    }

    @Test func readSomeServesBufferedBytesWithoutWaiting() throws {
        let (client, server) = try pair()
        let buffered = try TLSLikeStream(socket: server.socket, pieceSize: 10, readWantsWriteEvery: 1000)
        try client.writeAll(Array(0..<100), deadline: .now + .seconds(5))
        try client.shutdownWrite(deadline: .now + .seconds(5))
        // The first read pulls all 100 bytes off the socket and hands out 10; the rest come from its buffer.
        #expect(try buffered.readToEnd(limit: 100, deadline: .now + .seconds(5)) == Array(0..<100))
    }
}
