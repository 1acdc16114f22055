import ControlAPI
import HTTPWire
import Testing

struct ControlAPIConfigurationTests {
    @Test func defaults() {
        let configuration = ControlAPIConfiguration()
        #expect(configuration.token == nil)
        #expect(configuration.maxBodyBytes == 1 << 20)
        #expect(configuration.version == "2.9.0")
    }

    @Test func noTokenConfiguredNeedsNoAuthorization() {
        #expect(ControlClient().send(.get, "/proxies").status == 200)
    }

    @Test func missingTokenGets401WithAChallenge() {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "s3cret"))
        let reply = ControlClient(handler).send(.post, "/proxies", #"{"name": "db", "upstream": "x:1"}"#)
        #expect(reply.status == 401)
        #expect(reply.head.fields["WWW-Authenticate"] == #"Bearer realm="squall""#)
        #expect(reply.error == "missing or invalid bearer token")
        #expect(handler.proxies.isEmpty)
        #expect(handler.generation == 0)
    }

    @Test(arguments: ["Bearer s3creT", "Bearer s3cret2", "Bearer ", "Basic czNjcmV0", "s3cret"])
    func wrongTokenGets401(authorization: String) {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "s3cret"))
        let head = RequestHead(method: .post, target: "/reset", fields: ["Authorization": authorization])
        let (response, _) = handler.handle(head, body: [])
        #expect(response.status == 401)
        #expect(response.fields["WWW-Authenticate"] == #"Bearer realm="squall", error="invalid_token""#)
    }

    @Test(arguments: ["Bearer s3cret", "bearer s3cret", "BEARER s3cret"])
    func rightTokenIsServed(authorization: String) {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "s3cret"))
        let head = RequestHead(method: .get, target: "/version", fields: ["Authorization": authorization])
        let (response, _) = handler.handle(head, body: [])
        #expect(response.status == 200)
        #expect(response.fields["WWW-Authenticate"] == nil)
        let created = ControlClient(handler, token: "s3cret").send(
            .post, "/proxies", #"{"name": "db", "upstream": "x:1"}"#)
        #expect(created.status == 201)
    }
}
