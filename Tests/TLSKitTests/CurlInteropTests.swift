import TLSKit
import TestSupport
import Testing

/// The local CA and our TLS server against a client we did not write: curl (with OpenSSL underneath).
struct CurlInteropTests {
    private static let body = "hello from squall\n"

    /// Runs curl against `server` for host `localhost`, pinned to 127.0.0.1, ignoring any curlrc or proxy.
    private func curl(_ server: TLSTestServer, _ extra: [String]) throws -> TLSFixtures.ToolResult {
        let port = server.address.port
        return try TLSFixtures.runTool(
            "curl",
            ["-q", "-sS", "--noproxy", "*", "--max-time", "10", "--resolve", "localhost:\(port):127.0.0.1"]
                + extra + ["https://localhost:\(port)/"])
    }

    @Test(arguments: [[], ["--tlsv1.2", "--tls-max", "1.2"]])
    func curlTrustingTheCAGetsTheBody(versionFlags: [String]) throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority),
            handler: TLSTestServer.httpResponder(body: CurlInteropTests.body))
        let result = try curl(
            server, ["--cacert", authority.certificatePath, "-w", "%{http_code} %{http_version}"] + versionFlags)
        #expect(result.status == 0, "curl failed: \(result.standardError)")
        #expect(result.standardOutput == CurlInteropTests.body + "200 1.1")
        let served = try #require(server.nextConnection())
        #expect(served.error == nil)
        #expect(served.session?.serverName == "localhost")
        #expect(served.session?.alpn == "http/1.1")
        #expect(served.session?.protocolVersion == (versionFlags.isEmpty ? "TLSv1.3" : "TLSv1.2"))
    }

    @Test func curlWithoutTheCAFails() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority),
            handler: TLSTestServer.httpResponder(body: CurlInteropTests.body))
        let result = try curl(server, [])
        #expect(result.status == 60)  // CURLE_PEER_FAILED_VERIFICATION
        #expect(result.standardOutput.isEmpty)
        #expect(server.nextConnection()?.tlsErrorCode == .handshake)
    }
}
