import ControlAPI
import Dispatch
import HTTPWire
import Synchronization
import Testing

struct ControlAPIHandlerTests {
    @Test func versionIsJSON() {
        let reply = ControlClient(ControlAPIHandler(configuration: ControlAPIConfiguration(version: "9.9.9")))
            .send(.get, "/version")
        #expect(reply.status == 200)
        #expect(reply.head.fields["Content-Type"] == "application/json")
        #expect(reply.head.fields["Content-Length"] == String(reply.body.count))
        #expect(reply.object["version"] as? String == "9.9.9")
    }

    @Test func createShowsAndListsProxies() {
        let client = ControlClient()
        let created = client.send(
            .post, "/proxies", #"{"name": "db", "listen": "127.0.0.1:26379", "upstream": "127.0.0.1:6379"}"#)
        #expect(created.status == 201)
        #expect(created.head.reason == "Created")
        let expected = ProxyView("db", listen: "127.0.0.1:26379", upstream: "127.0.0.1:6379")
        #expect(ProxyView(created.object) == expected)
        #expect(created.object["toxics"] as? [Any] != nil)

        let shown = client.send(.get, "/proxies/db")
        #expect(shown.status == 200)
        #expect(ProxyView(shown.object) == expected)

        client.send(.post, "/proxies", #"{"name": "web", "upstream": "example.com:443", "enabled": false}"#)
        let listed = client.send(.get, "/proxies")
        #expect(listed.status == 200)
        #expect(listed.object.keys.sorted() == ["db", "web"])
        #expect(
            ProxyView(listed.object["web"] as? [String: Any] ?? [:])
                == ProxyView(
                    "web", upstream: "example.com:443", enabled: false))
    }

    @Test func updateChangesEnabledAndUpstreamAndKeepsToxics() {
        let client = ControlClient()
        client.createProxy("db")
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 5}}"#)
        let updated = client.send(.post, "/proxies/db", #"{"enabled": false, "upstream": "127.0.0.1:7000"}"#)
        #expect(updated.status == 200)
        let expected = ProxyView("db", upstream: "127.0.0.1:7000", enabled: false, toxics: ["latency_downstream"])
        #expect(ProxyView(updated.object) == expected)
        #expect(ProxyView(client.send(.get, "/proxies/db").object) == expected)
        let patched = client.send(.patch, "/proxies/db", #"{"enabled": true}"#)
        #expect(patched.object["enabled"] as? Bool == true)
        #expect(patched.object["upstream"] as? String == "127.0.0.1:7000")
    }

    @Test func deleteRemovesTheProxy() {
        let client = ControlClient()
        client.createProxy("db")
        let deleted = client.send(.delete, "/proxies/db")
        #expect(deleted.status == 204)
        #expect(deleted.body.isEmpty)
        #expect(deleted.head.fields["Content-Length"] == nil)
        #expect(client.send(.get, "/proxies/db").status == 404)
        #expect(client.handler.proxies.isEmpty)
    }

    @Test func populateCreatesAndReplaces() {
        let client = ControlClient()
        client.createProxy("db")
        client.send(.post, "/proxies/db/toxics", #"{"type": "limit_data", "attributes": {"bytes": 10}}"#)
        let body = #"""
            [{"name": "db", "upstream": "127.0.0.1:9001"}, {"name": "web", "listen": "127.0.0.1:0", "upstream": "b:80"}]
            """#
        let reply = client.send(.post, "/populate", body)
        #expect(reply.status == 201)
        let proxies = (reply.object["proxies"] as? [[String: Any]] ?? []).map(ProxyView.init)
        #expect(proxies == [ProxyView("db", upstream: "127.0.0.1:9001"), ProxyView("web", upstream: "b:80")])
        #expect(client.handler.rules(for: "db").isEmpty)
    }

    @Test func populateTwiceChangesNothing() {
        let client = ControlClient()
        let body = #"[{"name": "db", "upstream": "127.0.0.1:9000"}, {"name": "web", "upstream": "b:80"}]"#
        #expect(client.send(.post, "/populate", body).status == 201)
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 100}}"#)
        client.send(.post, "/proxies/web", #"{"enabled": false}"#)
        let before = client.handler.proxies
        let again = client.send(.post, "/populate", body)
        #expect(again.status == 201)
        #expect(client.handler.proxies == before)
        let proxies = (again.object["proxies"] as? [[String: Any]] ?? []).map(ProxyView.init)
        #expect(proxies.map(\.toxicNames) == [["latency_downstream"], []])
        #expect(proxies.map(\.enabled) == [true, false])
    }

    @Test func resetEnablesAllAndRemovesToxics() {
        let client = ControlClient()
        client.createProxy("db")
        client.createProxy("web")
        client.send(.post, "/proxies/db/toxics", #"{"type": "timeout", "attributes": {"timeout": 0}}"#)
        client.send(.post, "/proxies/web", #"{"enabled": false}"#)
        let reply = client.send(.post, "/reset")
        #expect(reply.status == 204)
        #expect(client.handler.proxies.values.allSatisfy { $0.enabled && $0.toxics.isEmpty })
        #expect(client.handler.proxies.count == 2)
        #expect(client.handler.rules(for: "db").isEmpty)
    }

    @Test(arguments: [
        (HTTPMethod.post, "/proxies", #"{"name": "db", "upstream": "x:1"}"#, 409, "proxy already exists"),
        (.post, "/proxies", #"{"upstream": "x:1"}"#, 400, "missing required field: name"),
        (.post, "/proxies", #"{"name": "new"}"#, 400, "missing required field: upstream"),
        (.post, "/proxies", #"{"name": "new", "upstream": "x:1""#, 400, "bad request body"),
        (.post, "/proxies", #"{"name": "new", "upstream": "x:1", "enabled": "yes"}"#, 400, "bad request body"),
        (.post, "/proxies", "", 400, "bad request body"),
        (.get, "/proxies/nope", "", 404, "proxy not found: nope"),
        (.post, "/proxies/nope", #"{"enabled": false}"#, 404, "proxy not found: nope"),
        (.post, "/proxies/db", "[]", 400, "bad request body"),
        (.delete, "/proxies/nope", "", 404, "proxy not found: nope"),
        (
            .post, "/populate", #"[{"name": "a", "upstream": "x:1"}, {"name": "b"}]"#, 400,
            "missing required field: upstream at proxy 2"
        ),
        (.post, "/populate", #"{"name": "a", "upstream": "x:1"}"#, 400, "bad request body"),
        (.get, "/nowhere", "", 404, "no endpoint /nowhere"),
        (.delete, "/proxies", "", 405, "method DELETE not allowed; allowed: GET, POST"),
        (.get, "/reset", "", 405, "method GET not allowed; allowed: POST"),
    ])
    func badRequestChangesNothing(method: HTTPMethod, target: String, body: String, status: Int, error: String) {
        let client = ControlClient()
        client.createProxy("db")
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 5}}"#)
        let before = client.handler.proxies
        let generation = client.handler.generation
        let reply = client.send(method, target, body)
        #expect(reply.status == status)
        #expect(reply.error == error)
        #expect(client.handler.proxies == before)
        #expect(client.handler.generation == generation)
    }

    @Test func wrongMethodNamesTheAllowedOnes() {
        let reply = ControlClient().send(.put, "/proxies/db")
        #expect(reply.status == 405)
        #expect(reply.head.fields["Allow"] == "GET, POST, PATCH, DELETE")
        #expect(ControlClient().send(.get, "/version").head.fields["Allow"] == nil)
    }

    @Test func oversizedBodyIsRefused() {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(maxBodyBytes: 16))
        let reply = ControlClient(handler).send(.post, "/proxies", #"{"name": "db", "upstream": "127.0.0.1:1"}"#)
        #expect(reply.status == 413)
        #expect(reply.error == "request body over 16 bytes")
        #expect(handler.proxies.isEmpty)
    }

    @Test func everyChangeBumpsTheGenerationAndCallsBack() {
        let seen = Mutex<[UInt64]>([])
        let client = ControlClient(ControlAPIHandler { generation in seen.withLock { $0.append(generation) } })
        client.createProxy("db")
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 5}}"#)
        client.send(.get, "/proxies")
        client.send(.post, "/proxies/db/toxics", #"{"type": "nope"}"#)
        client.send(.delete, "/proxies/db/toxics/latency_downstream")
        #expect(seen.withLock { $0 } == [1, 2, 3])
        #expect(client.handler.generation == 3)
    }

    @Test func concurrentAddsAndRemovesStayConsistent() {
        let client = ControlClient()
        client.createProxy("db")
        let workers = 8
        let rounds = 25
        DispatchQueue.concurrentPerform(iterations: workers + 1) { worker in
            guard worker < workers else {
                for _ in 0..<(workers * rounds) { _ = client.handler.rules(for: "db") }
                return
            }
            for round in 0..<rounds {
                let name = "w\(worker)_\(round)"
                let add = client.send(
                    .post, "/proxies/db/toxics", #"{"name": "\#(name)", "type": "latency", "attributes": {}}"#)
                #expect(add.status == 200)
                if round % 2 == 1 { #expect(client.send(.delete, "/proxies/db/toxics/\(name)").status == 204) }
            }
        }
        let expected = Set(
            (0..<workers).flatMap { worker in stride(from: 0, to: rounds, by: 2).map { "w\(worker)_\($0)" } })
        let names = client.handler.rules(for: "db").map(\.name)
        #expect(names.count == expected.count)
        #expect(Set(names) == expected)
        #expect(client.handler.generation == UInt64(1 + workers * rounds + workers * (rounds / 2)))
    }
}
