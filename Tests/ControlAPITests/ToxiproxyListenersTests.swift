import ControlAPI
import TestSupport
import Testing

/// With a runtime attached, Toxiproxy proxies get listeners, started and stopped inside each change before it
/// commits; a failed bind commits nothing.
struct ToxiproxyListenersTests {
    let runtime = FakeRuntime()
    let client: ControlClient

    init() {
        let handler = ControlAPIHandler()
        handler.attach(runtime)
        client = ControlClient(handler)
    }

    @Test func creatingAProxyStartsItsListenerAndStoresTheBoundAddress() {
        let created = client.send(.post, "/proxies", #"{"name": "db", "upstream": "127.0.0.1:9000"}"#)
        #expect(created.status == 201)
        #expect(created.object["listen"] as? String == "127.0.0.1:40001")
        #expect(ProxyView(client.send(.get, "/proxies/db").object).listen == "127.0.0.1:40001")
        #expect(runtime.listenerCalls == ["start db 127.0.0.1:0 127.0.0.1:9000 -> 127.0.0.1:40001"])
    }

    @Test func aDisabledProxyHasNoListener() {
        client.send(.post, "/proxies", #"{"name": "db", "upstream": "127.0.0.1:9000", "enabled": false}"#)
        #expect(runtime.listenerCalls.isEmpty)
        client.send(.post, "/proxies/db", #"{"enabled": true}"#)
        client.send(.post, "/proxies/db", #"{"enabled": false}"#)
        #expect(
            runtime.listenerCalls == [
                "start db 127.0.0.1:0 127.0.0.1:9000 -> 127.0.0.1:40001", "stop db",
            ])
    }

    @Test func changingTheUpstreamRestartsTheListenerOnItsAddress() {
        client.createProxy("db")
        client.send(.post, "/proxies/db", #"{"upstream": "127.0.0.1:9001"}"#)
        client.send(.post, "/proxies/db/toxics", #"{"type": "latency", "attributes": {"latency": 5}}"#)
        #expect(
            runtime.listenerCalls == [
                "start db 127.0.0.1:0 127.0.0.1:9000 -> 127.0.0.1:40001", "stop db",
                "start db 127.0.0.1:40001 127.0.0.1:9001 -> 127.0.0.1:40001",
            ])
    }

    @Test func deletingAndResettingStopAndStartListeners() {
        client.createProxy("a")
        client.createProxy("b")
        client.send(.post, "/proxies/b", #"{"enabled": false}"#)
        #expect(client.send(.post, "/reset").status == 204)
        #expect(client.send(.delete, "/proxies/a").status == 204)
        #expect(
            Array(runtime.listenerCalls.dropFirst(2)) == [
                "stop b", "start b 127.0.0.1:40002 127.0.0.1:9000 -> 127.0.0.1:40002", "stop a",
            ])
    }

    @Test func populatingTwiceLeavesUnchangedListenersAlone() {
        let body = #"[{"name": "a", "listen": "127.0.0.1:7001", "upstream": "127.0.0.1:9000"}]"#
        #expect(client.send(.post, "/populate", body).status == 201)
        #expect(client.send(.post, "/populate", body).status == 201)
        #expect(runtime.listenerCalls == ["start a 127.0.0.1:7001 127.0.0.1:9000 -> 127.0.0.1:7001"])
    }

    @Test func aFailedBindCommitsNothingAndStopsWhatTheChangeStarted() {
        client.send(.post, "/proxies", #"{"name": "old", "listen": "127.0.0.1:7000", "upstream": "127.0.0.1:9000"}"#)
        runtime.state.withLock { $0.failingListens = ["127.0.0.1:7002"] }
        let generation = client.handler.generation
        let reply = client.send(
            .post, "/populate",
            #"""
            [{"name": "a", "listen": "127.0.0.1:7001", "upstream": "127.0.0.1:9000"},
             {"name": "b", "listen": "127.0.0.1:7002", "upstream": "127.0.0.1:9000"},
             {"name": "old", "listen": "127.0.0.1:7003", "upstream": "127.0.0.1:9000"}]
            """#)
        #expect(reply.status == 400)
        #expect(reply.error == "cannot bind 127.0.0.1:7002")
        #expect(client.handler.generation == generation)
        #expect(client.handler.proxies.keys.sorted() == ["old"])
        #expect(client.handler.proxies["old"]?.listen == "127.0.0.1:7000")
        #expect(
            Array(runtime.listenerCalls.dropFirst()) == [
                "stop old",
                "start a 127.0.0.1:7001 127.0.0.1:9000 -> 127.0.0.1:7001",
                "start b 127.0.0.1:7002 127.0.0.1:9000 failed",
                "stop a",
                "start old 127.0.0.1:7000 127.0.0.1:9000 -> 127.0.0.1:7000",
            ])
    }

    @Test func withoutARuntimeNoListenerIsStarted() {
        let client = ControlClient()
        client.createProxy("db")
        #expect(client.handler.proxies["db"]?.listen == "127.0.0.1:0")
        #expect(runtime.listenerCalls.isEmpty)
    }
}
