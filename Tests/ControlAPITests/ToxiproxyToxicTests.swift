import ControlAPI
import FaultEngine
import HTTPWire
import Testing

struct ToxiproxyToxicTests {
    private func clientWithProxy() -> ControlClient {
        let client = ControlClient()
        client.createProxy("db")
        return client
    }

    @Test func createShowsAndListsToxics() {
        let client = clientWithProxy()
        let created = client.send(
            .post, "/proxies/db/toxics",
            #"{"type": "latency", "stream": "upstream", "toxicity": 0.5, "attributes": {"latency": 250, "jitter": 20}}"#
        )
        #expect(created.status == 200)
        let expected = ToxicView(
            "latency_upstream", type: "latency", stream: "upstream", toxicity: 0.5, ["latency": 250, "jitter": 20])
        #expect(ToxicView(created.object) == expected)
        #expect(ToxicView(client.send(.get, "/proxies/db/toxics/latency_upstream").object) == expected)

        client.send(.post, "/proxies/db/toxics", #"{"name": "cut", "type": "limit_data", "attributes": {"bytes": 9}}"#)
        let listed = client.send(.get, "/proxies/db/toxics")
        #expect(listed.status == 200)
        #expect(listed.array.map(ToxicView.init) == [expected, ToxicView("cut", type: "limit_data", ["bytes": 9])])
        let proxy = ProxyView(client.send(.get, "/proxies/db").object)
        #expect(proxy.toxicNames == ["latency_upstream", "cut"])
    }

    @Test func latencyToxicBecomesALatencyRule() throws {
        let client = clientWithProxy()
        client.send(
            .post, "/proxies/db/toxics",
            #"{"name": "slow", "type": "latency", "attributes": {"latency": 1000, "jitter": 50}}"#)
        let rules = client.handler.rules(for: "db")
        let rule = try #require(rules.first)
        #expect(rules.count == 1)
        #expect(rule.name == "slow")
        #expect(rule.action == .latency(.milliseconds(1000), jitter: .milliseconds(50)))
        #expect(rule.direction == .downstream)
        #expect(rule.probability == 1)
        #expect(client.handler.rules(for: "other").isEmpty)
    }

    @Test func bandwidthRuleUsesKilobytesOfAThousand() throws {
        let client = clientWithProxy()
        client.send(
            .post, "/proxies/db/toxics", #"{"type": "bandwidth", "stream": "upstream", "attributes": {"rate": 64}}"#)
        let rule = try #require(client.handler.rules(for: "db").first)
        #expect(rule.action == .bandwidth(bytesPerSecond: 64_000))
        #expect(rule.direction == .upstream)
    }

    @Test func updateReplacesToxicityAndMergesAttributes() throws {
        let client = clientWithProxy()
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 100, "jitter": 10}}"#)
        let updated = client.send(
            .post, "/proxies/db/toxics/latency_downstream", #"{"toxicity": 0.25, "attributes": {"latency": 300}}"#)
        #expect(updated.status == 200)
        let expected = ToxicView("latency_downstream", type: "latency", toxicity: 0.25, ["latency": 300, "jitter": 10])
        #expect(ToxicView(updated.object) == expected)
        let rule = try #require(client.handler.rules(for: "db").first)
        #expect(rule.action == .latency(.milliseconds(300), jitter: .milliseconds(10)))
        #expect(rule.probability == 0.25)
        let patched = client.send(.patch, "/proxies/db/toxics/latency_downstream", #"{"attributes": {"jitter": 0}}"#)
        #expect(ToxicView(patched.object).attributes == ["latency": 300, "jitter": 0])
        #expect(ToxicView(patched.object).toxicity == 0.25)
    }

    @Test func deleteRemovesTheToxicAndItsRule() {
        let client = clientWithProxy()
        client.send(.post, "/proxies/db/toxics", #"{"type": "reset_peer", "attributes": {"timeout": 0}}"#)
        client.send(.post, "/proxies/db/toxics", #"{"type": "slow_close", "attributes": {"delay": 10}}"#)
        let deleted = client.send(.delete, "/proxies/db/toxics/reset_peer_downstream")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(client.handler.rules(for: "db").map(\.name) == ["slow_close_downstream"])
        #expect(client.send(.get, "/proxies/db/toxics/reset_peer_downstream").status == 404)
    }

    @Test(arguments: [
        (
            HTTPMethod.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 1}}"#, 409,
            "toxic already exists"
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "jam", "attributes": {}}"#, 400,
            "type: unknown toxic type \"jam\"; known: bandwidth, latency, limit_data, reset_peer, slicer, slow_close, timeout"
        ),
        (
            .post, "/proxies/db/toxics", #"{"attributes": {}}"#, 400,
            "type: unknown toxic type \"\"; known: bandwidth, latency, limit_data, reset_peer, slicer, slow_close, timeout"
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "latency", "name": "x", "attributes": {"rate": 1}}"#, 400,
            "attributes.rate: latency has attributes: jitter, latency"
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "limit_data", "attributes": {"bytes": -1}}"#, 400,
            "attributes.bytes: -1 is negative"
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "bandwidth", "attributes": {"rate": 0}}"#, 400,
            "attributes.rate: rate must be 1…9223372036854775 KB/s; Toxiproxy's 0 means unlimited: remove the toxic instead"
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "timeout", "stream": "sideways", "attributes": {}}"#, 400,
            "stream: expected upstream or downstream, got \"sideways\""
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "timeout", "toxicity": 1.5, "attributes": {}}"#, 400,
            "toxicity: 1.5 is outside 0…1"
        ),
        (
            .post, "/proxies/db/toxics", #"{"type": "latency", "name": "x", "attributes": {"latency": 1.5}}"#, 400,
            "bad request body"
        ),
        (.post, "/proxies/db/toxics", #"{"type": "latency""#, 400, "bad request body"),
        (.post, "/proxies/nope/toxics", #"{"type": "latency", "attributes": {}}"#, 404, "proxy not found: nope"),
        (.get, "/proxies/nope/toxics", "", 404, "proxy not found: nope"),
        (.get, "/proxies/db/toxics/nope", "", 404, "toxic not found: nope"),
        (.post, "/proxies/db/toxics/nope", #"{"toxicity": 0.5}"#, 404, "toxic not found: nope"),
        (
            .post, "/proxies/db/toxics/latency_downstream", #"{"attributes": {"latency": -5}}"#, 400,
            "attributes.latency: -5 is negative"
        ),
        (.post, "/proxies/db/toxics/latency_downstream", #"{"toxicity": -0.1}"#, 400, "toxicity: -0.1 is outside 0…1"),
        (.delete, "/proxies/db/toxics/nope", "", 404, "toxic not found: nope"),
        (.delete, "/proxies/nope/toxics/latency_downstream", "", 404, "proxy not found: nope"),
        (.put, "/proxies/db/toxics", "", 405, "method PUT not allowed; allowed: GET, POST"),
    ])
    func badToxicRequestChangesNothing(method: HTTPMethod, target: String, body: String, status: Int, error: String) {
        let client = clientWithProxy()
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 5}}"#)
        let before = client.handler.proxies
        let rules = client.handler.rules(for: "db")
        let generation = client.handler.generation
        let reply = client.send(method, target, body)
        #expect(reply.status == status)
        #expect(reply.error == error)
        #expect(client.handler.proxies == before)
        #expect(client.handler.rules(for: "db") == rules)
        #expect(client.handler.generation == generation)
    }
}
