import HTTPExchange
import SquallNet
import TestSupport
import Testing

/// `drainBeforeClose`: the write side ends first, then the peer's bytes are dropped, bounded by bytes and by time.
struct DrainBeforeCloseTests {
    /// Sends `count` bytes from `stream` in 64 KiB pieces, stopping quietly when the peer goes.
    static func flood(_ stream: PlainStream, count: Int) {
        let piece = [UInt8](repeating: 7, count: 64 * 1024)
        var sent = 0
        while sent < count, (try? stream.writeAll(piece, deadline: .now + .seconds(20))) != nil { sent += piece.count }
    }

    @Test func theDrainStopsAfterMaxBytesThoughThePeerGoesOnSending() throws {
        let pair = try StreamPair()
        let client = Handed(stream: pair.client)
        let flooding = Background { Self.flood(client.stream, count: 64 << 20) }
        let started = ContinuousClock.now
        pair.server.drainBeforeClose(maxBytes: 256 * 1024, timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(15))
        pair.server.abort()
        try flooding.wait()
    }

    @Test func theDrainStopsAtItsTimeoutThoughThePeerStaysOpen() throws {
        let pair = try StreamPair()
        let started = ContinuousClock.now
        pair.server.drainBeforeClose(maxBytes: 1 << 20, timeout: .milliseconds(200))
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(15))
    }

    @Test func theDrainEndsTheWriteSideAndReturnsAtThePeersEnd() throws {
        let pair = try StreamPair()
        try pair.clientSends("the unread rest of a request")
        let client = Handed(stream: pair.client)
        let peer = Background { () throws -> [UInt8] in
            let seen = try client.stream.readToEnd(limit: 1024, deadline: .now + .seconds(20))
            try client.stream.shutdownWrite(deadline: .now + .seconds(20))
            return seen
        }
        let started = ContinuousClock.now
        HTTPServerStream(stream: pair.server).drainBeforeClose(timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(try peer.wait() == [])
    }
}
