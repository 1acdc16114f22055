import Dispatch
import Glibc
import SquallNet
import Synchronization
import TLSKit
import TestSupport
import Testing

struct TLSStreamTests {
    init() {
        ProcessSetup.ignoreBrokenPipe()
    }

    /// Deterministic bytes, so a reordered or corrupted echo is caught.
    private func payload(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        let words = (0..<(count + 7) / 8).map { _ in generator.next() }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    @Test(arguments: TLSVersion.allCases, [1, 16_385, 3 << 20])
    func echoesBothWays(version: TLSVersion, size: Int) throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority), handler: TLSTestServer.echo)
        let client = try TLSFixtures.clientContext(authority: authority) { $0.maximumVersion = version }
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: "echo.test")
        let sent = payload(size, seed: UInt64(size))
        let echoed = try ByteStreamDriver.exchange(stream, sending: sent)
        #expect(echoed.count == sent.count)
        #expect(echoed == sent)
        let expectedVersion = version == .tls13 ? "TLSv1.3" : "TLSv1.2"
        #expect(stream.session?.protocolVersion == expectedVersion)
        let served = try #require(server.nextConnection())
        #expect(served.error == nil)
        #expect(served.session?.protocolVersion == expectedVersion)
    }

    @Test func sessionInfoAgreesOnBothSides() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority), handler: TLSTestServer.echo)
        let client = try TLSFixtures.clientContext(authority: authority) { $0.alpn = ["h2", "http/1.1"] }
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: "Upload.Example.Test")
        _ = try ByteStreamDriver.exchange(stream, sending: Array("ping".utf8))
        let clientSession = try #require(stream.session)
        #expect(clientSession.serverName == "upload.example.test")
        #expect(clientSession.alpn == "http/1.1")
        #expect(clientSession.peerSubject == "CN=upload.example.test,O=Squall")
        #expect(clientSession.cipher.hasPrefix("TLS_"))
        let served = try #require(server.nextConnection()?.session)
        #expect(served.serverName == "upload.example.test")
        #expect(served.alpn == "http/1.1")
        #expect(served.cipher == clientSession.cipher)
        #expect(served.peerSubject == nil)
    }

    @Test func noCommonALPNMeansNone() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority), handler: TLSTestServer.echo)
        let client = try TLSFixtures.clientContext(authority: authority) { $0.alpn = ["h2"] }
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: "alpn.test")
        #expect(stream.session?.alpn == nil)
        _ = try ByteStreamDriver.exchange(stream, sending: [])
        #expect(server.nextConnection()?.session?.alpn == nil)
    }

    @Test func providerChoosesTheLeafPerServerName() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let asked = Mutex<[String?]>([])
        let context = try TLSContext(
            server: TLSServerConfiguration { name in
                asked.withLock { $0.append(name) }
                return try authority.leaf(for: name ?? "127.0.0.1")
            })
        let server = try TLSTestServer(context: context, handler: TLSTestServer.echo)
        let client = try TLSFixtures.clientContext(authority: authority)
        var subjects: [String?] = []
        for name in ["alpha.test", "beta.test", nil] {
            let stream = try TLSStream.connect(to: server.address, context: client, serverName: name)
            subjects.append(stream.session?.peerSubject)
            _ = try ByteStreamDriver.exchange(stream, sending: [])
            _ = server.nextConnection()
        }
        #expect(subjects == ["CN=alpha.test,O=Squall", "CN=beta.test,O=Squall", "CN=127.0.0.1,O=Squall"])
        #expect(asked.withLock { $0 } == ["alpha.test", "beta.test", nil])
    }

    @Test func providerFailureAbortsTheHandshake() throws {
        struct NoSuchHost: Error {}
        let context = try TLSContext(server: TLSServerConfiguration { _ in throw NoSuchHost() })
        let server = try TLSTestServer(context: context, handler: TLSTestServer.echo)
        let client = try TLSContext(client: TLSClientConfiguration(trust: .insecure))
        let error = try #require(throws: TLSError.self) {
            try TLSStream.connect(to: server.address, context: client, serverName: "nowhere.test")
        }
        #expect(error.code == .handshake)
        let served = try #require(server.nextConnection())
        #expect(served.tlsErrorCode == .certificate)
        #expect(served.session == nil)
    }

    @Test(arguments: TLSVersion.allCases)
    func nonBlockingHandshakeAndTransfer(version: TLSVersion) throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        // The server answers only once the client has seen a handshake step block, so the client's
        // non-blocking path is always exercised, however the threads are scheduled.
        let clientBlocked = DispatchSemaphore(value: 0)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority), completesHandshake: false
        ) { stream in
            guard clientBlocked.wait(timeout: .now() + 10) == .success else {
                throw TLSFixtures.Failure("the client's handshake never blocked")
            }
            try stream.socket.setNonBlocking(true)
            try drive(stream) { try stream.handshake() }
            try TLSTestServer.echo(stream)
        }
        let client = try TLSFixtures.clientContext(authority: authority) { $0.maximumVersion = version }
        let socket = try TCPConnector.connect(to: server.address)
        try socket.setNonBlocking(true)
        let stream = try TLSStream(socket: socket, context: client, serverName: "127.0.0.1")
        var blocked = 0
        try drive(stream) {
            let outcome = try stream.handshake()
            if case .wouldBlock = outcome {
                blocked += 1
                if blocked == 1 { clientBlocked.signal() }
            }
            return outcome
        }
        #expect(blocked > 0)
        #expect(stream.session?.protocolVersion == (version == .tls13 ? "TLSv1.3" : "TLSv1.2"))
        let sent = payload(1 << 20, seed: 7)
        #expect(try ByteStreamDriver.exchange(stream, sending: sent) == sent)
        #expect(server.nextConnection()?.error == nil)
    }

    @Test func closeNotifyIsEndOfStream() throws {
        let (server, client) = try closingServer { stream in try ByteStreamDriver.shutdownWrite(stream) }
        let stream = try TLSStream.connect(to: server.address, context: client)
        #expect(try ByteStreamDriver.readToEnd(stream) == Array("bye".utf8))
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try stream.read(into: $0) } == .endOfStream)
    }

    @Test func closeWithoutCloseNotifyIsUnexpectedEOF() throws {
        let (server, client) = try closingServer { stream in stream.socket.close() }
        let stream = try TLSStream.connect(to: server.address, context: client)
        let error = try #require(throws: TLSError.self) { try ByteStreamDriver.readToEnd(stream) }
        #expect(error.code == .unexpectedEOF)
        _ = server.nextConnection()
    }

    @Test func resetIsAnIOError() throws {
        let (server, client) = try closingServer { stream in stream.abort() }
        let stream = try TLSStream.connect(to: server.address, context: client)
        _ = server.nextConnection()
        let error = try #require(throws: TLSError.self) { try ByteStreamDriver.readToEnd(stream) }
        #expect(error.code == .io)
        #expect(error.errno == ECONNRESET)
    }

    @Test func handshakeTimesOutAgainstASilentPeer() throws {
        let listener = try TCPListener(address: SocketAddress(parsing: "127.0.0.1:0"))
        defer { listener.close() }
        let client = try TLSContext(client: TLSClientConfiguration(trust: .insecure))
        let started = ContinuousClock.now
        let error = try #require(throws: TLSError.self) {
            try TLSStream.connect(to: listener.address, context: client, timeout: .milliseconds(200))
        }
        #expect(error.code == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    /// A server that writes "bye" after the handshake and then ends the connection with `ending`.
    private func closingServer(
        ending: @escaping @Sendable (TLSStream) throws -> Void
    ) throws -> (TLSTestServer, TLSContext) {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(context: TLSFixtures.serverContext(authority: authority)) { stream in
            try ByteStreamDriver.writeAll(stream, Array("bye".utf8))
            try ending(stream)
        }
        return (server, try TLSFixtures.clientContext(authority: authority))
    }
}

/// Repeats a non-blocking step, polling for what it asks, until it is done.
private func drive(_ stream: TLSStream, _ step: () throws -> IOOutcome) throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    while case .wouldBlock(let interest) = try step() {
        try ByteStreamDriver.wait(stream, interest, deadline)
    }
}
