import Foundation
import TLSKit
import TestSupport
import Testing

/// The control API for people and phones, end to end with `squall proxy --api`: the dashboard page, the CA as PEM
/// and as an Apple profile (fetched without the token; curl trusts the proxy with the fetched PEM), the
/// transcript as server-sent events (with the token), and an API off loopback refused without `--api-token`.
@Suite(.serialized)
struct DashboardAPITests {
    static let token = "dashboard-secret"

    @Test(.enabled(if: ServerProcessTests.hasCurl, "needs /usr/bin/curl (Tools/setup.sh installs it)"))
    func thePageTheCAAndTheEventStream() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: folder.file("ca"))
        let server = try ServerProcess(store: folder.file("store"))
        let proxy = try ProxyCommandTests.ProxyProcess(
            [
                "--upstream", server.url, "--ca", folder.file("ca"), "--api", "127.0.0.1:0", "--api-token",
                Self.token,
            ], lineCount: 3)
        let (site, api) = (proxy.lines[0], proxy.lines[1])
        let curl = { (arguments: [String]) in try ServerProcessTests().curl(arguments) }

        // The page and the CA need no token; the data does.
        let page = try curl([api + "/"]).output.joined(separator: "\n")
        #expect(page.contains("<title>Squall proxy</title>"))
        #expect(page.contains("data-token-required=\"true\""))
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", api + "/squall/faults"]).output == ["401"])

        // The fetched PEM is the CA's, and curl trusts the proxy with it.
        let fetched = folder.file("fetched.pem")
        #expect(try curl(["-o", fetched, "-w", "%{http_code}", api + "/ca.pem"]).output == ["200"])
        let onDisk = try String(contentsOfFile: folder.file("ca") + "/ca.pem", encoding: .utf8)
        #expect(try String(contentsOfFile: fetched, encoding: .utf8) == onDisk)
        let trusted = try curl(["-o", "/dev/null", "-w", "%{http_code}", "--cacert", fetched, site + "/upload"])
        #expect(trusted.status == 0, "\(trusted.verbose)")
        // Negative control: without the CA, curl refuses the proxy's certificate.
        let untrusted = try curl(["-o", "/dev/null", "-w", "%{http_code}", site + "/upload"])
        #expect(untrusted.status == 60, "\(untrusted)")

        // The profile is a property list whose root payload is the certificate's DER.
        let profile = folder.file("ca.mobileconfig")
        #expect(try curl(["-o", profile, "-w", "%{http_code}", api + "/ca.mobileconfig"]).output == ["200"])
        let check = try TLSFixtures.runTool(
            "/usr/bin/python3",
            [
                "-c",
                """
                import plistlib, ssl, sys
                p = plistlib.load(open(sys.argv[1], "rb"))
                root = p["PayloadContent"][0]
                der = ssl.PEM_cert_to_DER_cert(open(sys.argv[2]).read())
                assert p["PayloadType"] == "Configuration", p["PayloadType"]
                assert root["PayloadType"] == "com.apple.security.root", root["PayloadType"]
                assert root["PayloadContent"] == der, "the payload is not the CA's DER"
                assert p["PayloadUUID"] != root["PayloadUUID"]
                print("ok")
                """, profile, folder.file("ca") + "/ca.pem",
            ])
        #expect(check.standardOutput == "ok\n", "\(check.standardError)")

        // The transcript as server-sent events: a request through the proxy shows up as it happens.
        let authority = String(api.dropFirst("http://".count))
        let events = try RawHTTPConnection(authority)
        try events.sendHead("GET", "/squall/events?from=0", [("Authorization", "Bearer \(Self.token)")])
        let head = try events.readHead()
        #expect(head.status == 200)
        #expect(head["Content-Type"] == "text/event-stream")
        #expect(head["Content-Length"] == nil)
        _ = try curl(["-o", "/dev/null", "--cacert", fetched, site + "/sse-probe"])
        let streamed = try events.read(until: "/sse-probe")
        #expect(streamed.contains("data: {\"t_us\":"), "\(streamed)")
        #expect(streamed.contains("id: 0\ndata: {"), "each event carries its transcript index: \(streamed)")
        #expect(streamed.contains("\"event\":\"request\""))
        let ended = proxy.stop()
        #expect(ended.status == 143, "the proxy stops with an event stream open: \(ended.errors)")
    }

    @Test func anAPIOffLoopbackNeedsAToken() throws {
        let result = try TLSFixtures.runTool(
            SquallBinaryTests.binary,
            ["proxy", "--upstream", "http://127.0.0.1:9", "--plain", "--api", "0.0.0.0:0"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("add --api-token T"), "\(result.standardError)")
    }
}
