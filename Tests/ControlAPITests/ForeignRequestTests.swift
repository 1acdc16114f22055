import ControlAPI
import HTTPWire
import TestSupport
import Testing

/// Without a token, a web page in the user's browser must not steer the proxy: a request naming another host
/// (DNS rebinding) or sent from a page of another origin is 403 and changes nothing; the API's own pages, curl and
/// tools that send no `Origin` are served. With a token, the token decides.
struct ForeignRequestTests {
    static func send(
        _ handler: ControlAPIHandler, _ method: HTTPMethod, _ target: String, fields: [(String, String)],
        body: String = ""
    ) -> ResponseHead {
        var head = RequestHead(method: method, target: target, fields: [:])
        for (name, value) in fields { head.fields.append(name: name, value: value) }
        return handler.handle(head, body: Array(body.utf8)).0
    }

    static let rule = #"{"name": "cut", "action": "reset"}"#

    @Test(arguments: [
        [("Host", "evil.example")], [("Host", "evil.example:8474")], [("Host", "127.0.0.1.evil.example")],
        [("Host", "127.0.0.1:8474"), ("Origin", "http://evil.example")], [("Origin", "null")],
        [("Origin", "http://127.0.0.1.evil.example:8474")], [("Host", "[::2]:8474")], [("Host", "127.0.0.256")],
    ])
    func aForeignRequestIsRefusedAndChangesNothing(fields: [(String, String)]) {
        let runtime = FakeRuntime()
        let handler = ControlAPIHandler()
        handler.attach(runtime)
        #expect(Self.send(handler, .post, "/squall/faults", fields: fields, body: Self.rule).status == 403)
        #expect(Self.send(handler, .get, "/squall/events", fields: fields).status == 403)
        #expect(runtime.rules.isEmpty)
    }

    @Test(arguments: [
        [], [("Host", "127.0.0.1:8474")], [("Host", "localhost")], [("Host", "LOCALHOST:1")], [("Host", "[::1]:8474")],
        [("Host", "127.1.2.3:80")], [("Host", "127.0.0.1:8474"), ("Origin", "http://127.0.0.1:8474")],
        [("Origin", "http://localhost:3000")], [("Origin", "https://[::1]")],
    ])
    func aLoopbackRequestIsServed(fields: [(String, String)]) {
        let runtime = FakeRuntime()
        let handler = ControlAPIHandler()
        handler.attach(runtime)
        #expect(Self.send(handler, .post, "/squall/faults", fields: fields, body: Self.rule).status == 201)
        #expect(runtime.rules.map(\.name) == ["cut"])
    }

    /// With a token (the API off loopback, reached by a phone or another machine), any host may be named; the
    /// token is what is checked, and a page of another origin cannot send it without the user.
    @Test func withATokenTheTokenDecides() {
        let runtime = FakeRuntime()
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "s3cret"))
        handler.attach(runtime)
        let host = [("Host", "192.168.1.20:8474")]
        #expect(Self.send(handler, .post, "/squall/faults", fields: host, body: Self.rule).status == 401)
        let authorized = host + [("Authorization", "Bearer s3cret")]
        #expect(Self.send(handler, .post, "/squall/faults", fields: authorized, body: Self.rule).status == 201)
        #expect(Self.send(handler, .get, "/", fields: host).status == 200)
    }
}
