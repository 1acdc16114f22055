import SquallNet
import TLSKit
import TestSupport
import Testing

struct VerificationTests {
    /// Connects a client trusting `trust` (default: `authority`) to a server presenting the leaf for `leafHost`.
    private func handshake(
        leafHost: String, serverName: String?, authority: CertificateAuthority,
        trust: TLSTrust? = nil
    ) throws -> (TLSStream, TLSTestServer.ServedConnection?) {
        let context = try TLSContext(server: TLSServerConfiguration(identity: authority.leaf(for: leafHost)))
        let server = try TLSTestServer(context: context, handler: TLSTestServer.echo)
        let client = try TLSContext(client: TLSClientConfiguration(trust: trust ?? .caFile(authority.certificatePath)))
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: serverName)
        _ = try ByteStreamDriver.exchange(stream, sending: Array("ok".utf8))
        return (stream, server.nextConnection())
    }

    @Test func matchingNameVerifies() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let (stream, served) = try handshake(leafHost: "good.test", serverName: "good.test", authority: authority)
        #expect(stream.session?.peerSubject == "CN=good.test,O=Squall")
        #expect(served?.error == nil)
    }

    @Test func wrongHostNameFailsWithTheHostnameCode() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let error = try #require(throws: TLSError.self) {
            try handshake(leafHost: "good.test", serverName: "evil.test", authority: authority)
        }
        #expect(error.code == .hostnameMismatch)
        #expect(error.detail.contains("hostname mismatch"))
    }

    @Test func untrustedCAFailsVerification() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let stranger = try TLSFixtures.makeCertificateAuthority(in: directory, named: "stranger")
        let error = try #require(throws: TLSError.self) {
            try handshake(
                leafHost: "good.test", serverName: "good.test", authority: authority,
                trust: .caFile(stranger.certificatePath))
        }
        #expect(error.code == .verificationFailed)
        // The server sends its CA along, so OpenSSL meets a root it does not trust.
        #expect(error.detail.contains("self-signed certificate in certificate chain"))
    }

    @Test func systemRootsDoNotTrustTheLocalCA() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let error = try #require(throws: TLSError.self) {
            try handshake(leafHost: "good.test", serverName: "good.test", authority: authority, trust: .systemDefault)
        }
        #expect(error.code == .verificationFailed)
    }

    @Test func ipSANVerifiesForLoopback() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let (stream, served) = try handshake(leafHost: "127.0.0.1", serverName: nil, authority: authority)
        #expect(stream.session?.peerSubject == "CN=127.0.0.1,O=Squall")
        #expect(stream.session?.serverName == nil)
        #expect(served?.session?.serverName == nil)
    }

    @Test func otherIPAddressFailsWithTheHostnameCode() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let error = try #require(throws: TLSError.self) {
            try handshake(leafHost: "127.0.0.2", serverName: nil, authority: authority)
        }
        #expect(error.code == .hostnameMismatch)
    }

    @Test func insecureTrustAcceptsAnything() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let (stream, _) = try handshake(
            leafHost: "good.test", serverName: "evil.test", authority: authority, trust: .insecure)
        #expect(stream.session?.peerSubject == "CN=good.test,O=Squall")
    }

    @Test func inMemoryCertificatesCanBeTrusted() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let (stream, _) = try handshake(
            leafHost: "good.test", serverName: "good.test", authority: authority,
            trust: .certificates([authority.certificate]))
        #expect(stream.session?.protocolVersion == "TLSv1.3")
    }

    @Test func badConfigurationsAreRejected() throws {
        let missing = try #require(throws: TLSError.self) {
            try TLSContext(client: TLSClientConfiguration(trust: .caFile("/nonexistent/ca.pem")))
        }
        #expect(missing.code == .configuration)
        var inverted = TLSClientConfiguration(trust: .insecure)
        inverted.minimumVersion = .tls13
        inverted.maximumVersion = .tls12
        let versions = try #require(throws: TLSError.self) { try TLSContext(client: inverted) }
        #expect(versions.code == .configuration)
        var longALPN = TLSClientConfiguration(trust: .insecure)
        longALPN.alpn = [String(repeating: "x", count: 256)]
        let alpn = try #require(throws: TLSError.self) { try TLSContext(client: longALPN) }
        #expect(alpn.code == .configuration)
    }

    @Test func versionMismatchFailsTheHandshake() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority) { $0.minimumVersion = .tls13 },
            handler: TLSTestServer.echo)
        let client = try TLSFixtures.clientContext(authority: authority) { $0.maximumVersion = .tls12 }
        let error = try #require(throws: TLSError.self) {
            try TLSStream.connect(to: server.address, context: client, serverName: "old.test")
        }
        #expect(error.code == .handshake)
        #expect(server.nextConnection()?.tlsErrorCode == .handshake)
    }
}
