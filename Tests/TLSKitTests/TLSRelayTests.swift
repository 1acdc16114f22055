import Foundation
import Glibc
import SquallNet
import TLSKit
import TestSupport
import Testing

/// How long any step of these tests may wait.
private let patience: Duration = .seconds(20)

/// The `Relay` over real TLS, the way the chaos proxy uses it:
///
/// ```
/// client ──TLS, SNI upload.example.test──▶ [ accept TLS (CA leaf for the SNI host) ══ Relay ══ connect ]
///                                                                      ──plain (or TLS)──▶ loopback server
/// ```
/// Everything listens on 127.0.0.1 port 0 and is ready when its constructor returns.
struct TLSRelayTests {
    /// The host the client asks for; the relay mints a leaf for it.
    private static let host = "upload.example.test"

    /// A CA in a temporary folder, and the contexts made from it.
    private struct Fixture {
        let directory: TLSFixtures.TemporaryDirectory
        let authority: CertificateAuthority

        init() throws {
            ProcessSetup.ignoreBrokenPipe()
            directory = try TLSFixtures.TemporaryDirectory()
            authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        }

        /// A relay that terminates TLS with a leaf for the SNI host and relays in plain to `upstream`.
        func terminatingRelay(to upstream: SocketAddress) throws -> RelayHarness {
            let context = try TLSFixtures.serverContext(authority: authority)
            return try RelayHarness(upstream: upstream) { socket in
                try TLSStream.accept(socket: socket, context: context, timeout: patience)
            }
        }

        /// A TLS client of `address` that trusts the CA and asks for `TLSRelayTests.host`.
        func connect(to address: SocketAddress, keyLog: KeyLog? = nil) throws -> TLSStream {
            let context = try TLSFixtures.clientContext(authority: authority) { $0.keyLog = keyLog }
            return try TLSStream.connect(to: address, context: context, serverName: TLSRelayTests.host)
        }
    }

    /// 8 MiB up and a little more down at the same time, both patterns checked byte for byte at the far end;
    /// the report counts every byte exactly (the two sizes differ, so swapped directions show).
    @Test func relaysEightMebibytesEachWayOverTLS() throws {
        let (up, down): (Int64, Int64) = (8 << 20, (8 << 20) + 12_345)
        let (upPattern, downPattern) = (BytePattern(seed: 81), BytePattern(seed: 82))
        let fixture = try Fixture()
        let serverSaw = Mailbox<Result<PatternChecker, NetError>>()
        let server = try TLSRelayTests.duplexServer(
            expecting: upPattern, replying: down, with: downPattern, results: serverSaw)
        let relay = try fixture.terminatingRelay(to: server.address)
        defer { relay.stop() }
        let client = try fixture.connect(to: relay.address)

        let received = try ByteStreamDriver.exchange(
            client, sending: upPattern.bytes(Int(up)), limit: Int(down), timeout: patience)

        var clientChecker = PatternChecker(pattern: downPattern)
        received.withUnsafeBytes { clientChecker.check($0) }
        #expect(clientChecker.matches(count: down))
        let serverChecker = try #require(serverSaw.take()).get()
        #expect(serverChecker.matches(count: up))
        #expect(client.session?.protocolVersion == "TLSv1.3")
        #expect(client.session?.peerSubject == "CN=\(TLSRelayTests.host),O=Squall")
        let report = try #require(relay.reports.take())
        #expect(report.isClean)
        #expect(report.toUpstream.bytesReceived == up)
        #expect(report.toUpstream.bytesDelivered == up)
        #expect(report.toDownstream.bytesReceived == down)
        #expect(report.toDownstream.bytesDelivered == down)
    }

    /// The client sends, then ends its side with close_notify: the server gets the end of stream, only then
    /// replies, and the client still receives the whole reply and the relay's own close_notify.
    @Test func halfCloseThroughTLSStillDeliversTheWholeReply() throws {
        let (request, reply): (Int64, Int64) = (3 << 20, 2 << 20)
        let fixture = try Fixture()
        let serverSaw = Mailbox<Result<PatternChecker, NetError>>()
        let server = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            do {
                let checker = try PatternChecker.receive(BytePattern(seed: 91), from: stream, deadline: .now + patience)
                serverSaw.put(.success(checker))
                try BytePattern(seed: 92).send(reply, to: stream, deadline: .now + patience)
                try stream.shutdownWrite(deadline: .now + patience)
                stream.close()
            } catch {
                serverSaw.put(.failure(NetError(.read, "\(error)")))
                stream.abort()
            }
        }
        let relay = try fixture.terminatingRelay(to: server.address)
        defer { relay.stop() }
        let client = try fixture.connect(to: relay.address)

        try BytePattern(seed: 91).send(request, to: client, deadline: .now + patience)
        try client.shutdownWrite(deadline: .now + patience)
        // An end of stream without close_notify would throw `unexpectedEOF` here.
        let checker = try PatternChecker.receive(BytePattern(seed: 92), from: client, deadline: .now + patience)

        #expect(try #require(serverSaw.take()).get().matches(count: request))
        #expect(checker.matches(count: reply))
        let report = try #require(relay.reports.take())
        #expect(report.downstream == .endOfStream)
        #expect(report.upstream == .endOfStream)
        #expect(report.toUpstream.bytesDelivered == request)
        #expect(report.toDownstream.bytesDelivered == reply)
    }

    /// The upstream resets after 1 MiB of a transfer far larger than every buffer on the way: the relay
    /// reports the upstream reset and aborts the client's connection, and the TLS client's next write fails
    /// with `ECONNRESET` (a TCP RST, not an end of stream without close_notify).
    @Test func anUpstreamResetEndsTheTLSClientWithAReset() throws {
        let fixture = try Fixture()
        let server = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
            defer { chunk.deallocate() }
            var received = 0
            while received < 1 << 20 {
                guard let count = try? stream.readSome(into: chunk, deadline: .now + patience), count > 0 else { break }
                received += count
            }
            stream.abort()
        }
        let relay = try fixture.terminatingRelay(to: server.address)
        defer { relay.stop() }
        let client = try fixture.connect(to: relay.address)

        // 64 MiB cannot all fit in the socket buffers and the relay's: the write must see the reset.
        let error = try #require(throws: TLSError.self) {
            try BytePattern(seed: 5).send(64 << 20, to: client, deadline: .now + patience)
        }
        #expect(error.code == .io)
        #expect(error.errno == ECONNRESET)
        let report = try #require(relay.reports.take())
        #expect(report.upstream == .reset)
        #expect(report.downstream == .aborted)
        #expect(report.toUpstream.bytesDelivered >= 1 << 20)
        #expect(report.toUpstream.bytesDelivered < 64 << 20)
        #expect(report.toDownstream.bytesDelivered == 0)
    }

    /// TLS on both legs: the relay verifies the upstream against the CA, and its one key log holds the
    /// secrets of both sessions, exactly those the client and the origin logged.
    @Test func relaysBetweenTwoTLSLegsAndLogsTheKeysOfBoth() throws {
        let size: Int64 = 1 << 20
        let fixture = try Fixture()
        let logs = try ["client", "relay", "origin"].map { try KeyLog(path: fixture.directory.file("\($0).keys")) }
        let origin = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: fixture.authority) { $0.keyLog = logs[2] },
            handler: TLSTestServer.echo)
        let legs = Mailbox<Result<BothLegs, any Error>>()
        let relay = try TLSRelayTests.bothLegsRelay(
            to: origin.address, trusting: fixture.authority, keyLog: logs[1], results: legs)
        defer { relay.stop() }
        let client = try fixture.connect(to: relay.address, keyLog: logs[0])

        let echoed = try ByteStreamDriver.exchange(
            client, sending: BytePattern(seed: 4).bytes(Int(size)), limit: Int(size), timeout: patience)

        #expect(echoed == BytePattern(seed: 4).bytes(Int(size)))
        let result = try #require(legs.take()).get()
        #expect(result.report.isClean)
        #expect(result.report.toUpstream.bytesDelivered == size)
        #expect(result.report.toDownstream.bytesDelivered == size)
        #expect(result.upstream.peerSubject == "CN=origin.test,O=Squall")
        #expect(try #require(origin.nextConnection()).session?.serverName == "origin.test")
        #expect(client.session?.peerSubject == "CN=\(TLSRelayTests.host),O=Squall")
        let (clientLines, relayLines, originLines) = try (lines(logs[0]), lines(logs[1]), lines(logs[2]))
        #expect(clientLines.count == 5)
        #expect(originLines.count == 5)
        #expect(relayLines.count == 10)
        #expect(Set(relayLines) == Set(clientLines + originLines))
        #expect(Set(clientLines.map(randomField)).isDisjoint(with: originLines.map(randomField)))
    }

    /// An upstream whose certificate the relay's CA did not sign is refused: the relay never relays, and the
    /// client that it already accepted is reset.
    @Test func anUntrustedUpstreamIsRefused() throws {
        let fixture = try Fixture()
        let stranger = try TLSFixtures.makeCertificateAuthority(in: fixture.directory, named: "stranger")
        let origin = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: stranger), handler: TLSTestServer.echo)
        let legs = Mailbox<Result<BothLegs, any Error>>()
        let relay = try TLSRelayTests.bothLegsRelay(
            to: origin.address, trusting: fixture.authority, keyLog: nil, results: legs)
        defer { relay.stop() }
        let client = try fixture.connect(to: relay.address)

        let outcome = try #require(legs.take())
        let failure = try #require(throws: TLSError.self) { try outcome.get() }
        #expect(failure.code == .verificationFailed)
        let error = try #require(throws: TLSError.self) {
            _ = try ByteStreamDriver.exchange(client, sending: Array("hello".utf8), timeout: patience)
        }
        #expect(error.code == .io)
        #expect(error.errno == ECONNRESET)
    }

    /// What a relay with TLS on both legs reports: its `RelayReport` and the upstream session.
    private struct BothLegs: Sendable {
        let report: RelayReport
        let upstream: TLSSessionInfo
    }

    /// A relay that terminates TLS (leaf per SNI) and connects with TLS to `origin` as `origin.test`,
    /// verifying it against `authority`; both contexts log to `keyLog`. It aborts the client when the
    /// upstream leg fails, and posts the outcome to `results`.
    private static func bothLegsRelay(
        to origin: SocketAddress, trusting authority: CertificateAuthority, keyLog: KeyLog?,
        results: Mailbox<Result<BothLegs, any Error>>
    ) throws -> AcceptLoop {
        let serverContext = try TLSFixtures.serverContext(authority: authority) { $0.keyLog = keyLog }
        let clientContext = try TLSFixtures.clientContext(authority: authority) { $0.keyLog = keyLog }
        return try LoopbackServer.start { socket in
            do {
                let downstream = try TLSStream.accept(socket: socket, context: serverContext, timeout: patience)
                let upstream: TLSStream
                do {
                    upstream = try TLSStream.connect(to: origin, context: clientContext, serverName: "origin.test")
                } catch {
                    downstream.abort()
                    throw error
                }
                guard let session = upstream.session else { throw TLSFixtures.Failure("no upstream session") }
                let report = Relay().run(downstream: downstream, upstream: upstream)
                results.put(.success(BothLegs(report: report, upstream: session)))
            } catch {
                socket.abort()
                results.put(.failure(error))
            }
        }
    }

    /// A server that checks the client's `expected` pattern to its end while a second thread sends `count`
    /// bytes of `reply` and then a FIN (one reader and one writer may share a plain socket).
    private static func duplexServer(
        expecting expected: BytePattern, replying count: Int64, with reply: BytePattern,
        results: Mailbox<Result<PatternChecker, NetError>>
    ) throws -> AcceptLoop {
        try LoopbackServer.start { socket in
            let writer = ConnectionThread(name: "duplex-writer") {
                try? reply.send(count, to: PlainStream(socket: socket), deadline: .now + patience)
                socket.shutdown(writing: true)
            }
            do {
                let stream = PlainStream(socket: socket)
                let checker = try PatternChecker.receive(expected, from: stream, deadline: .now + patience)
                results.put(.success(checker))
            } catch {
                results.put(.failure(NetError(.read, "\(error)")))
            }
            writer.join()
            socket.close()
        }
    }

    /// The lines of a key log file.
    private func lines(_ keyLog: KeyLog) throws -> [String] {
        try String(contentsOfFile: keyLog.path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The client random of a key log line (its second field).
    private func randomField(_ line: String) -> String {
        String(line.split(separator: " ").dropFirst().first ?? "")
    }
}
