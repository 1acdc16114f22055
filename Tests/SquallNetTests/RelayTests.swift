import Dispatch
import SquallNet
import Synchronization
import TestSupport
import Testing

/// How long any step of these tests may wait.
private let patience: Duration = .seconds(20)

/// Transfers through a `Relay`: client ↔ relay (`RelayHarness`) ↔ loopback server.
struct RelayTests {
    @Test func roundTripThroughAnEchoServer() throws {
        let echo = try LoopbackServer.echo()
        let harness = try RelayHarness(upstream: echo.address)
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)
        let message = Array("hello through the relay".utf8)

        try client.writeAll(message, deadline: .now + patience)
        try client.shutdownWrite(deadline: .now + patience)
        #expect(try client.readToEnd(limit: 1024, deadline: .now + patience) == message)

        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        #expect(report.toUpstream.bytesDelivered == Int64(message.count))
        #expect(report.toDownstream.bytesDelivered == Int64(message.count))
        #expect(report.duration > .zero)
    }

    /// 64 MiB each way with a 64 KiB buffer: the far end checks every byte, and the buffers never hold more
    /// than their capacity.
    @Test func sixtyFourMebibytesEachWayStayWithinTheBuffers() throws {
        let size: Int64 = 64 << 20
        let echo = try LoopbackServer.echo()
        let harness = try RelayHarness(upstream: echo.address, configuration: RelayConfiguration(bufferSize: 64 << 10))
        defer { harness.stop() }

        let checker = try RelayTests.exchange(size, through: harness.address, pattern: BytePattern(seed: 64))

        #expect(checker.matches(count: size))
        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        for direction in RelayDirection.allCases {
            #expect(report[direction].bytesReceived == size)
            #expect(report[direction].bytesDelivered == size)
            #expect(report[direction].bufferHighWater > 0)
            #expect(report[direction].bufferHighWater <= 64 << 10)
        }
    }

    /// A downstream that behaves like TLS (reads that want writability, writes that want readability, bytes
    /// buffered beyond the socket) still relays every byte; a relay that waited on poll() while bytes sat in
    /// `bufferedReadableCount` would stall here until the idle timeout.
    @Test func relaysOverAStreamThatBehavesLikeTLS() throws {
        let size: Int64 = 4 << 20
        let echo = try LoopbackServer.echo()
        let harness = try RelayHarness(
            upstream: echo.address, configuration: RelayConfiguration(bufferSize: 32 << 10, idleTimeout: .seconds(5))
        ) { try TLSLikeStream(socket: $0) }
        defer { harness.stop() }

        let checker = try RelayTests.exchange(size, through: harness.address, pattern: BytePattern(seed: 7))

        #expect(checker.matches(count: size))
        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        #expect(report.toUpstream.bytesDelivered == size)
        #expect(report.toDownstream.bytesDelivered == size)
    }

    /// A TLS write may read records and keep the application data it finds. Here the client's request lands in
    /// the TLS-like downstream's buffer while the greeting is written to it, after the relay's read already
    /// waits for readability: only a relay that reads `bufferedReadableCount` bytes without polling delivers
    /// the request (otherwise it sits there until the idle timeout).
    @Test func readsBytesBufferedByAWriteWithoutWaitingForPoll() throws {
        let request = Array("request absorbed by a write".utf8)
        let serverMayGreet = DispatchSemaphore(value: 0)
        let serverSaw = Mailbox<[UInt8]>()
        let server = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            guard serverMayGreet.wait(timeout: .now() + .seconds(20)) == .success else { return }
            try? stream.writeAll(Array("hello".utf8), deadline: .now + patience)
            var received = [UInt8](repeating: 0, count: request.count)
            var count = 0
            while count < request.count {
                let more = received.withUnsafeMutableBytes { buffer in
                    try? stream.readSome(
                        into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), deadline: .now + patience)
                }
                guard let more, more > 0 else { break }
                count += more
            }
            serverSaw.put(Array(received[..<count]))
        }
        let tap = SendOnFirstReply(request)
        let harness = try RelayHarness(
            upstream: server.address, configuration: RelayConfiguration(idleTimeout: .seconds(2)), tap: tap
        ) {
            try TLSLikeStream(socket: $0, readWantsWriteEvery: 1000, writeWantsReadEvery: 1000, writeReadsAheadEvery: 1)
        }
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)
        tap.client.withLock { $0 = client.socket }
        serverMayGreet.signal()

        #expect(serverSaw.take() == request)
        #expect(try client.readToEnd(limit: 100, deadline: .now + patience) == Array("hello".utf8))
        try client.shutdownWrite(deadline: .now + patience)
        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        #expect(report.toUpstream.bytesDelivered == Int64(request.count))
    }

    @Test func relaysOverIPv6() throws {
        let size: Int64 = 1 << 20
        let echo = try LoopbackServer.echo(host: "::1")
        let harness = try RelayHarness(host: "::1", upstream: echo.address)
        defer { harness.stop() }
        #expect(harness.address.description.hasPrefix("[::1]:"))

        let checker = try RelayTests.exchange(size, through: harness.address, pattern: BytePattern(seed: 6))

        #expect(checker.matches(count: size))
        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        #expect(report.toDownstream.bytesDelivered == size)
    }

    @Test func theTapSeesEveryChunkBeforeItIsRelayed() throws {
        let tap = CountingTap()
        let echo = try LoopbackServer.echo()
        let harness = try RelayHarness(upstream: echo.address, tap: tap)
        defer { harness.stop() }

        let checker = try RelayTests.exchange(300_000, through: harness.address, pattern: BytePattern(seed: 3))

        #expect(checker.matches(count: 300_000))
        let report = try #require(harness.reports.take())
        #expect(tap.bytes(.toUpstream) == 300_000)
        #expect(tap.bytes(.toDownstream) == 300_000)
        #expect(report.toUpstream.bytesReceived == tap.bytes(.toUpstream))
    }

    /// Connects a non-blocking client stream, so every deadline holds.
    static func connect(to address: SocketAddress) throws -> PlainStream {
        let socket = try TCPConnector.connect(to: address, timeout: .seconds(5))
        try socket.setNonBlocking(true)
        return PlainStream(socket: socket)
    }

    /// Sends `count` pattern bytes from a writer thread, then ends the stream, while this thread reads and
    /// checks what comes back.
    static func exchange(_ count: Int64, through address: SocketAddress, pattern: BytePattern) throws
        -> PatternChecker
    {
        let reader = try connect(to: address)
        let socket = reader.socket
        let written = Mailbox<String?>()
        let writer = ConnectionThread(name: "test-writer") {
            let stream = PlainStream(socket: socket)
            do {
                try pattern.send(count, to: stream, deadline: .now + patience)
                try stream.shutdownWrite(deadline: .now + patience)
                written.put(nil)
            } catch {
                written.put("\(error)")
            }
        }
        let checker = try PatternChecker.receive(pattern, from: reader, deadline: .now + patience)
        #expect(written.take() == .some(nil))
        writer.join()
        return checker
    }
}

/// Sends the client's request from inside the relay, the moment the first reply chunk is read, so the request
/// arrives just before the relay writes that chunk downstream.
private final class SendOnFirstReply: RelayTap, Sendable {
    let client = Mutex<Socket?>(nil)
    private let request: [UInt8]
    private let sent = Atomic<Bool>(false)

    init(_ request: [UInt8]) {
        self.request = request
    }

    func relay(_ direction: RelayDirection, received chunk: UnsafeRawBufferPointer) {
        guard direction == .toDownstream, !sent.exchange(true, ordering: .relaxed),
            let socket = client.withLock({ $0 })
        else { return }
        try? PlainStream(socket: socket).writeAll(request, deadline: .now + patience)
    }
}
