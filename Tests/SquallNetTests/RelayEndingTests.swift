import SquallNet
import TestSupport
import Testing

/// How long any step of these tests may wait.
private let patience: Duration = .seconds(20)

/// How relays end: half-close in both orders, resets propagated as resets, cancellation, timeouts.
struct RelayEndingTests {
    /// The client sends, ends its write side and still receives the server's whole reply; the server sees EOF.
    @Test func clientHalfCloseStillGetsTheWholeReply() throws {
        let reply = BytePattern(seed: 11)
        let serverSaw = Mailbox<Int>()
        let server = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            guard let request = try? stream.readToEnd(limit: 1 << 20, deadline: .now + patience) else { return }
            serverSaw.put(request.count)
            try? reply.send(1 << 20, to: stream, deadline: .now + patience)
            stream.close()
        }
        let harness = try RelayHarness(upstream: server.address)
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)

        try BytePattern(seed: 12).send(100_000, to: client, deadline: .now + patience)
        try client.shutdownWrite(deadline: .now + patience)
        let checker = try PatternChecker.receive(reply, from: client, deadline: .now + patience)

        #expect(serverSaw.take() == 100_000)
        #expect(checker.matches(count: 1 << 20))
        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        #expect(report.toUpstream.bytesDelivered == 100_000)
        #expect(report.toDownstream.bytesDelivered == 1 << 20)
    }

    /// The server speaks first and ends its write side; the client reads to EOF, then sends, and the server
    /// still receives everything.
    @Test func serverHalfCloseKeepsTheOtherDirectionOpen() throws {
        let serverSaw = Mailbox<Int>()
        let server = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            try? stream.writeAll(Array("bye".utf8), deadline: .now + patience)
            try? stream.shutdownWrite(deadline: .now + patience)
            serverSaw.put((try? stream.readToEnd(limit: 1 << 20, deadline: .now + patience).count) ?? -1)
        }
        let harness = try RelayHarness(upstream: server.address)
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)

        #expect(try client.readToEnd(limit: 100, deadline: .now + patience) == Array("bye".utf8))
        try BytePattern(seed: 13).send(500_000, to: client, deadline: .now + patience)
        try client.shutdownWrite(deadline: .now + patience)

        #expect(serverSaw.take() == 500_000)
        let report = try #require(harness.reports.take())
        #expect(report.isClean)
        #expect(report.toUpstream.bytesDelivered == 500_000)
    }

    /// The upstream resets mid-transfer: the client sees a reset too, and the report says who reset.
    @Test func anUpstreamResetReachesTheClientAsAReset() throws {
        let server = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            var received = 0
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
            defer { chunk.deallocate() }
            while received < 1 << 20 {
                guard let count = try? stream.readSome(into: chunk, deadline: .now + patience), count > 0 else { break }
                received += count
            }
            stream.abort()
        }
        let harness = try RelayHarness(upstream: server.address)
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)

        // One thread only: the kernel reports a reset to the first call that looks, then shows an end of stream.
        #expect {
            try BytePattern(seed: 14).send(2 << 20, to: client, deadline: .now + patience)
            _ = try client.readToEnd(limit: 1 << 20, deadline: .now + patience)
        } throws: { error in
            (error as? NetError)?.code == .connectionReset
        }
        let report = try #require(harness.reports.take())
        #expect(report.upstream == .reset)
        #expect(report.downstream == .aborted)
        #expect(report.toUpstream.bytesDelivered >= 1 << 20)
        #expect(!report.isClean)
    }

    /// The client resets: the upstream server sees a reset.
    @Test func aDownstreamResetReachesTheServerAsAReset() throws {
        let serverSaw = Mailbox<NetError.Code?>()
        let server = try LoopbackServer.start { socket in
            do {
                _ = try PlainStream(socket: socket).readToEnd(limit: 1 << 20, deadline: .now + patience)
                serverSaw.put(nil)
            } catch {
                serverSaw.put((error as? NetError)?.code)
            }
        }
        let harness = try RelayHarness(upstream: server.address)
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)

        try client.writeAll(Array("partial request".utf8), deadline: .now + patience)
        _ = try #require(harness.controls.take())
        client.abort()

        #expect(serverSaw.take() == .connectionReset)
        let report = try #require(harness.reports.take())
        #expect(report.downstream == .reset)
        #expect(report.upstream == .aborted)
    }

    /// `cancel()` from the test thread ends a relay blocked in poll() with both sides `cancelled`.
    @Test func cancelFromAnotherThreadEndsTheRelay() throws {
        let echo = try LoopbackServer.echo()
        let harness = try RelayHarness(upstream: echo.address, configuration: RelayConfiguration(idleTimeout: nil))
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)
        try client.writeAll(Array("x".utf8), deadline: .now + patience)
        var one = [UInt8](repeating: 0, count: 1)
        let count = try one.withUnsafeMutableBytes {
            try client.readSome(into: $0, deadline: .now + patience)
        }
        #expect(count == 1)

        let control = try #require(harness.controls.take())
        let cancelled = ContinuousClock.now
        control.cancel()

        let report = try #require(harness.reports.take(timeout: .seconds(5)))
        #expect(ContinuousClock.now - cancelled < .seconds(5))
        #expect(control.isCancelled)
        #expect(report.downstream == .cancelled)
        #expect(report.upstream == .cancelled)
        #expect(try client.readToEnd(limit: 10, deadline: .now + patience).isEmpty)
    }

    @Test func aSilentConnectionEndsWithTheIdleTimeout() throws {
        let echo = try LoopbackServer.echo()
        let harness = try RelayHarness(
            upstream: echo.address, configuration: RelayConfiguration(idleTimeout: .milliseconds(150)))
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)

        let report = try #require(harness.reports.take())
        #expect(report.downstream == .idleTimeout)
        #expect(report.upstream == .idleTimeout)
        #expect(report.duration >= .milliseconds(150))
        #expect(try client.readToEnd(limit: 10, deadline: .now + patience).isEmpty)
    }

    @Test func theTimeLimitEndsEvenABusyRelay() throws {
        let echo = try LoopbackServer.echo()
        let limit = RelayConfiguration(idleTimeout: nil, timeLimit: .milliseconds(200))
        let harness = try RelayHarness(upstream: echo.address, configuration: limit)
        defer { harness.stop() }
        let client = try RelayTests.connect(to: harness.address)
        let socket = client.socket
        let writer = ConnectionThread(name: "test-writer") {
            try? BytePattern(seed: 15).send(1 << 40, to: PlainStream(socket: socket), deadline: .now + patience)
        }

        // The relay closes the client's connection at the limit: an end of stream, or a reset when bytes the
        // relay had not read yet were still queued.
        _ = try? PatternChecker.receive(BytePattern(seed: 15), from: client, deadline: .now + patience)
        let report = try #require(harness.reports.take())
        #expect(report.downstream == .timeLimit)
        #expect(report.upstream == .timeLimit)
        #expect(report.toDownstream.bytesDelivered > 0)
        client.abort()
        writer.join()
    }
}
