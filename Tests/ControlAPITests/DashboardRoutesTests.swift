import ControlAPI
import Foundation
import HTTPWire
import TestSupport
import Testing

/// The public pages of the control API (the dashboard, the CA as PEM and as a profile) and the event stream's
/// head, from the handler alone.
struct DashboardRoutesTests {
    static let pem = """
        -----BEGIN CERTIFICATE-----
        AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=
        -----END CERTIFICATE-----

        """

    static func handler(token: String? = "s3cret") -> ControlAPIHandler {
        ControlAPIHandler(
            configuration: ControlAPIConfiguration(
                token: token,
                device: DeviceProfile(
                    certificatePEM: pem, fingerprint: "AB:CD:EF:01:23:45:67:89", subject: "CN=Squall <test>")))
    }

    @Test func theDashboardAndTheCAAreServedWithoutTheTokenAndTheDataIsNot() {
        let client = ControlClient(Self.handler())
        let page = client.send(.get, "/")
        #expect(page.status == 200)
        #expect(page.head.fields["Content-Type"] == "text/html; charset=utf-8")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("data-token-required=\"true\""))
        #expect(
            html.contains("id=\"rule-form\"") && html.contains("id=\"fire-form\"") && html.contains("/squall/events"))
        // The one link is the empty icon, inline, so that the browser does not ask for /favicon.ico either.
        #expect(
            !html.contains("src=") && html.components(separatedBy: "<link").count == 2
                && html.contains("<link rel=\"icon\" href=\"data:,\">"), "the page fetches nothing from elsewhere")
        let pem = client.send(.get, "/ca.pem")
        #expect(pem.status == 200)
        #expect(pem.head.fields["Content-Type"] == "application/x-pem-file")
        #expect(String(decoding: pem.body, as: UTF8.self) == Self.pem)
        #expect(client.send(.get, "/ca.mobileconfig").status == 200)
        // Negative controls: the data needs the token; the public pages take only GET.
        #expect(client.send(.get, "/squall/faults").status == 401)
        #expect(client.send(.get, "/squall/events").status == 401)
        #expect(client.send(.post, "/ca.pem").status == 405)
        #expect(ControlClient(Self.handler(), token: "s3cret").send(.get, "/version").status == 200)
    }

    /// Each event carries its transcript index as its id; a reader resumes after `Last-Event-ID` or from `?from=`.
    @Test func eventsCarryTheirTranscriptIndex() {
        let handler = Self.handler(token: nil)
        let runtime = FakeRuntime(transcript: ["{\"a\":0}", "{\"b\":1}", "{\"c\":2}"])
        handler.attach(runtime)
        let events = handler.events(from: 1, wait: .zero)
        #expect(events?.text == "id: 1\ndata: {\"b\":1}\n\nid: 2\ndata: {\"c\":2}\n\n" && events?.next == 3)
        var head = RequestHead(method: .get, target: "/squall/events", fields: [:])
        head.fields.append(name: "Last-Event-ID", value: "1")
        #expect(handler.respond(head, body: []).eventStreamFrom == 2)
        head.target = "/squall/events?from=0"
        #expect(handler.respond(head, body: []).eventStreamFrom == 0, "?from= wins over Last-Event-ID")
    }

    /// Negative control: a PEM with no certificate in it gives no profile (a 404), never an empty one.
    @Test func aPEMWithoutACertificateGivesNoProfile() {
        for pem in ["", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"] {
            let profile = DeviceProfile(certificatePEM: pem, fingerprint: "ABCDEF0123456789", subject: "CN=x")
            #expect(profile.certificateDER == nil && profile.mobileconfig == nil)
        }
    }

    @Test func theProfileHoldsTheCertificatesDERAndStableIdentifiers() throws {
        let profile = try #require(Self.handler().configuration.device?.mobileconfig)
        let data = try PropertyListSerialization.propertyList(from: Data(profile.utf8), format: nil)
        let root = try #require(data as? [String: Any])
        #expect(root["PayloadType"] as? String == "Configuration")
        let payload = try #require((root["PayloadContent"] as? [[String: Any]])?.first)
        #expect(payload["PayloadType"] as? String == "com.apple.security.root")
        #expect((payload["PayloadContent"] as? Data).map(Array.init) == Array(1...32))
        #expect(payload["PayloadDisplayName"] as? String == "CN=Squall <test>")
        #expect(root["PayloadUUID"] as? String == "ABCDEF01-2345-4789-0000-000000000000")
        #expect(payload["PayloadUUID"] as? String == "ABCDEF01-2345-4789-0000-000000000001")
        #expect(root["PayloadIdentifier"] as? String == "dev.squall.ca.ABCDEF0123456789")
    }

    /// A plain proxy has no CA: 404, saying why.
    @Test func aPlainProxyHasNoCA() {
        let client = ControlClient(ControlAPIHandler())
        #expect(client.send(.get, "/ca.pem").status == 404)
        #expect(client.send(.get, "/ca.mobileconfig").error?.contains("--plain") == true)
        #expect(String(decoding: client.send(.get, "/").body, as: UTF8.self).contains("data-token-required=\"false\""))
    }

    /// Without a proxy attached there is no stream; a bad `from` is refused.
    @Test func theEventStreamNeedsAProxy() {
        let client = ControlClient(Self.handler(token: nil))
        #expect(client.send(.get, "/squall/events").status == 404)
        let response = Self.handler(token: nil).respond(
            RequestHead(method: .get, target: "/squall/events?from=0", fields: [:]), body: [])
        #expect(response.eventStreamFrom == nil)
    }
}
