import Dispatch
import Glibc
import SquallNet
import TLSKit
import TestSupport
import Testing

/// `TLSStream`'s batched records (`OutboundRecords`): a write that would block reports its bytes once, when their
/// records are in the kernel, however reads and retries interleave, and the peer gets every byte once, in order.
struct OutboundRecordsTests {
    init() {
        ProcessSetup.ignoreBrokenPipe()
    }

    @Test func aBlockedWriteIsReportedOnceItsRecordsAreSent() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let payload = BytePattern(seed: 14).bytes(4 << 20)
        let clientBlocked = DispatchSemaphore(value: 0)
        let received = Mailbox<[UInt8]>()
        // The server reads nothing until the client's writes have blocked, so the client's socket buffer fills and
        // the retries (with reads in between, which may send the pending records themselves) are exercised.
        let server = try TLSTestServer(context: TLSFixtures.serverContext(authority: authority)) { stream in
            guard clientBlocked.wait(timeout: .now() + 10) == .success else {
                throw TLSFixtures.Failure("the client's writes never blocked")
            }
            received.put(try ByteStreamDriver.readToEnd(stream, limit: 8 << 20))
        }
        let client = try TLSFixtures.clientContext(authority: authority)
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: "records.test")
        try stream.socket.setNonBlocking(true)
        try stream.socket.setOption(level: SOL_SOCKET, name: SO_SNDBUF, value: 64 * 1024)
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var offset = 0
        var blocked = 0
        var scratch = [UInt8](repeating: 0, count: 1024)
        while offset < payload.count {
            let piece = min(256 * 1024, payload.count - offset)
            switch try payload[offset..<offset + piece].withUnsafeBytes({ try stream.write($0) }) {
            case .done(let count):
                #expect(count > 0 && count <= piece)
                offset += count
            case .wouldBlock(let interest):
                blocked += 1
                if blocked == 1 { clientBlocked.signal() }
                // The server sends nothing: a read finds no data, whatever it does with the pending records.
                #expect(try scratch.withUnsafeMutableBytes { try stream.read(into: $0) } == .wouldBlock(.read))
                try ByteStreamDriver.wait(stream, interest, deadline)
            case .endOfStream:
                Issue.record("a write reported the end of the stream")
                return
            }
        }
        if blocked == 0 { clientBlocked.signal() }
        try ByteStreamDriver.shutdownWrite(stream)
        #expect(blocked > 0)
        let echoed = try #require(received.take())
        #expect(echoed.count == payload.count)
        #expect(echoed.elementsEqual(payload), "the server got other bytes than were sent")
        #expect(server.nextConnection()?.error == nil)
    }
}
