import ControlAPI
import FaultEngine
import Foundation
import HTTPWire
import TestSupport
import Testing

/// The native endpoints under `/squall/` and `/metrics`, against a `FakeRuntime`.
struct ControlAPIHandlerNativeTests {
    let runtime: FakeRuntime
    let client: ControlClient

    init() {
        runtime = FakeRuntime(
            connections: [
                LiveConnection(
                    id: 7, proxy: "main", client: "127.0.0.1:5000", age: 1.5, bytesUpstream: 10, bytesDownstream: 20,
                    requests: 2)
            ],
            transcript: [#"{"event":"open"}"#, #"{"event":"request"}"#, #"{"event":"close"}"#])
        let handler = ControlAPIHandler()
        handler.attach(runtime)
        client = ControlClient(handler)
    }

    /// Whether `error` starts with `message` (`path: detail`) once its `(line L, column C)` is left out.
    static func says(_ error: String?, _ message: String) -> Bool {
        guard let error else { return false }
        return error.replacing(#/ \(line \d+, column \d+\)/#, with: "", maxReplacements: 1).hasPrefix(message)
    }

    /// A refused fault names its place in the body, as scenario files do.
    @Test func aBadFaultNamesItsLineAndColumn() {
        let reply = client.send(
            .post, "/squall/faults",
            "[{\"name\": \"a\", \"action\": \"close\"},\n {\"name\": \"b\", \"action\": \"bandwidth\", \"rate\": 0}]")
        #expect(reply.status == 400)
        #expect(reply.error == "[1].rate (line 2, column 47): bandwidth must be above 0 bytes/s; to stop, use stall")
    }

    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    @Test(arguments: ["/squall/faults", "/squall/connections", "/metrics", "/squall/transcript"])
    func withoutARuntimeTheNativeEndpointsAre404(path: String) {
        let reply = ControlClient().send(.get, path)
        #expect(reply.status == 404)
        #expect(reply.error == "no endpoint \(path): no proxy attached")
    }

    @Test func aReleasedRuntimeIsNotKept() {
        let handler = ControlAPIHandler()
        do {
            let runtime = FakeRuntime()
            handler.attach(runtime)
            #expect(ControlClient(handler).send(.get, "/squall/faults").status == 200)
        }
        #expect(ControlClient(handler).send(.get, "/squall/faults").status == 404)
    }

    @Test func connectionsAreListed() {
        let reply = client.send(.get, "/squall/connections")
        #expect(reply.status == 200)
        #expect(reply.array.count == 1)
        #expect(reply.array.first?["id"] as? Int == 7)
        #expect(reply.array.first?["client"] as? String == "127.0.0.1:5000")
        #expect(reply.array.first?["bytesDownstream"] as? Int == 20)
    }

    @Test func oneFaultIsAddedAndListedInTheScenarioVocabulary() throws {
        let json = #"{"name": "slow", "action": "bandwidth", "rate": "64KiB", "direction": "upstream"}"#
        let added = client.send(.post, "/squall/faults", json)
        #expect(added.status == 201)
        #expect(added.object["name"] as? String == "slow")
        #expect(added.object["rate"] as? String == "64KiB")
        #expect(runtime.rules == [try Self.rule(json)])
        let listed = client.send(.get, "/squall/faults")
        #expect(listed.status == 200)
        #expect(listed.array.first?["fired"] as? Int == 0)
        #expect(listed.array.first?["state"] as? String == "armed")
        #expect(listed.array.first?["reason"] == nil)
        // Without its status keys, a listed fault posts back as it was.
        let rules = listed.array.map { fault in fault.filter { !["fired", "state", "reason"].contains($0.key) } }
        let stripped = try JSONSerialization.data(withJSONObject: rules)
        #expect(try FaultRule.parseList(String(decoding: stripped, as: UTF8.self)) == runtime.rules)
    }

    @Test func theListSaysHowOftenEachFaultFiredAndWhereItStands() throws {
        client.send(
            .post, "/squall/faults",
            #"[{"name": "cut", "trigger": {"at-offset": "70%"}, "action": "reset"}, {"name": "once", "action": "close", "times": 1}, {"name": "idle", "action": "close"}]"#
        )
        let reason = "70% of an upload whose length the proxy never learned (PATCH /upload/7)"
        runtime.state.withLock {
            $0.statuses["cut"] = FaultRuleStatus(name: "cut", fired: 0, state: .unresolvable, reason: reason)
            $0.statuses["once"] = FaultRuleStatus(name: "once", fired: 1, state: .exhausted)
        }
        let listed = client.send(.get, "/squall/faults").array
        #expect(listed.map { $0["name"] as? String } == ["cut", "once", "idle"])
        #expect(listed.map { $0["fired"] as? Int } == [0, 1, 0])
        #expect(listed.map { $0["state"] as? String } == ["unresolvable", "exhausted", "armed"])
        #expect(listed.map { $0["reason"] as? String } == [reason, nil, nil])
    }

    @Test func anArrayOfFaultsIsAddedTogether() {
        let added = client.send(
            .post, "/squall/faults",
            #" [{"name": "a", "action": "reset"}, {"name": "b", "action": "respond", "status": 503}]"#)
        #expect(added.status == 201)
        #expect(added.array.map { $0["name"] as? String } == ["a", "b"])
        #expect(runtime.rules.map(\.name) == ["a", "b"])
    }

    @Test(arguments: [
        (#"[{"name": "a", "action": "reset"}, {"name": "b", "action": "bandwidth", "rate": "fast"}]"#, "[1].rate: "),
        (#"{"name": "a", "action": "bandwidth", "rate": 0}"#, "rate: bandwidth must be above 0"),
        (#"{"name": "a", "action": "explode"}"#, #"action: unknown action "explode""#),
        (#"{"name": "a", "action": "reset", "rate": 5}"#, "rate: unknown key"),
        (#"{"action": "reset"}"#, "name: missing"),
        (#"{"name": "a", "action": "reset""#, "the body is not valid JSON: line 1, column 32: expected '}'"),
        (#"{"name": "a", "action": "reset"} x"#, "the body is not valid JSON: line 1, column 34: unexpected bytes"),
        (
            #"[{"name": "a", "action": "reset", "name": "b"}]"#,
            #"[0].name: the key "name" appears twice in this object; keep one"#
        ),
        (#"[]"#, "an empty array adds no fault"),
        // What cannot go on the wire is refused, not accepted and then sent broken (or never).
        (
            #"{"name": "a", "action": "respond", "status": 503, "headers": {"Retry-After": "1\r\nX: y"}}"#,
            "headers.Retry-After: a field value cannot hold CR, LF"
        ),
        (
            #"{"name": "a", "action": "respond", "status": 503, "headers": {"Bad Name": "1"}}"#,
            "headers.Bad Name: a field name must be a token"
        ),
        (#"{"name": "a", "action": "respond", "status": 101}"#, "status: status 101 cannot answer a request"),
        (#"{"name": "a", "action": "respond", "status": 104}"#, "status: status 104 cannot answer a request"),
        (
            #"{"name": "a", "action": "rewrite-header", "direction": "upstream", "header": "X\r\nEvil", "value": "1"}"#,
            "header: a field name must be a token"
        ),
        (
            #"{"name": "a", "action": "rewrite-header", "direction": "upstream", "header": "X", "value": "1\n2"}"#,
            "value: a field value cannot hold CR, LF"
        ),
        (#"42"#, "expected a fault object"),
    ])
    func aBadFaultIs400NamingThePathAndAddsNothing(body: String, message: String) throws {
        try runtime.addFaultRules([try Self.rule(#"{"name": "kept", "action": "close"}"#)])
        let reply = client.send(.post, "/squall/faults", body)
        #expect(reply.status == 400)
        #expect(Self.says(reply.error, message), "\(reply.error ?? "")")
        #expect(runtime.rules.map(\.name) == ["kept"])
    }

    @Test func aNameInUseIs409AndAddsNothing() {
        client.send(.post, "/squall/faults", #"{"name": "a", "action": "reset"}"#)
        let clash = client.send(
            .post, "/squall/faults", #"[{"name": "b", "action": "reset"}, {"name": "a", "action": "close"}]"#)
        #expect(clash.status == 409)
        let twice = client.send(
            .post, "/squall/faults", #"[{"name": "c", "action": "reset"}, {"name": "c", "action": "close"}]"#)
        #expect(twice.status == 409)
        #expect(twice.error == #"[1].name (line 1, column 45): "c" appears twice"#)
        #expect(runtime.rules.map(\.name) == ["a"])
    }

    @Test func aFaultIsRemovedByItsPercentEncodedName() {
        client.send(
            .post, "/squall/faults", #"[{"name": "slow down", "action": "reset"}, {"name": "b", "action": "close"}]"#)
        #expect(client.send(.delete, "/squall/faults/slow%20down").status == 204)
        #expect(runtime.rules.map(\.name) == ["b"])
        let again = client.send(.delete, "/squall/faults/slow%20down")
        #expect(again.status == 404)
        #expect(again.error == #"no fault named "slow down""#)
        #expect(client.send(.get, "/squall/faults/b").status == 405)
    }

    @Test func anActionIsFiredOnALiveConnection() {
        let fired = client.send(
            .post, "/squall/connections/7/fire", #"{"action": "stall", "duration": "2s", "direction": "upstream"}"#)
        #expect(fired.status == 200)
        #expect(fired.object["fired"] as? String == "fire")
        client.send(.post, "/squall/connections/7/fire", #"{"name": "cut", "action": "reset"}"#)
        #expect(
            runtime.fired == [
                FakeRuntime.Fired(
                    action: .stall(duration: .seconds(2), thenClose: false), direction: .upstream, connection: 7,
                    name: "fire"),
                FakeRuntime.Fired(action: .reset, direction: .both, connection: 7, name: "cut"),
            ])
    }

    @Test(arguments: [
        ("/squall/connections/8/fire", #"{"action": "reset"}"#, 404, "no connection 8"),
        ("/squall/connections/x/fire", #"{"action": "reset"}"#, 404, "no connection x"),
        ("/squall/connections/7/fire", #"{"action": "reset", "match": {"nth-request": 1}}"#, 400, "match: "),
        ("/squall/connections/7/fire", #"{"action": "reset", "trigger": {"after": "1s"}}"#, 400, "trigger: "),
        ("/squall/connections/7/fire", #"{"action": "latency"}"#, 400, "latency: missing"),
        ("/squall/connections/7/fire", #"{"action": "nope"}"#, 400, "action: unknown action"),
        ("/squall/connections/7/fire", #"["reset"]"#, 400, "expected an action object"),
    ])
    func aBadFireChangesNothing(path: String, body: String, status: Int, message: String) {
        let reply = client.send(.post, path, body)
        #expect(reply.status == status)
        #expect(Self.says(reply.error, message), "\(reply.error ?? "")")
        #expect(runtime.fired.isEmpty)
    }

    @Test func aScenarioReplacesEveryFaultAndSetsTheSeed() throws {
        client.send(.post, "/squall/faults", #"{"name": "old", "action": "reset"}"#)
        let reply = client.send(
            .post, "/squall/scenario",
            #"{"name": "s", "seed": 18446744073709551615, "expect": {}, "faults": [{"name": "n", "action": "close"}]}"#)
        #expect(reply.status == 200)
        #expect(reply.object["faults"] as? Int == 1)
        #expect(runtime.rules.map(\.name) == ["n"])
        #expect(runtime.state.withLock { $0.seed } == UInt64.max)
    }

    @Test(arguments: [
        (#"{"seed": 1}"#, "faults: missing"),
        (#"{"faults": {}}"#, "faults: expected an array"),
        (#"{"faults": [{"name": "x", "action": "limit", "bytes": -1}]}"#, "faults[0].bytes: expected a size"),
        (#"{"faults": [{"name": "x", "action": "close"}, {"name": "x", "action": "reset"}]}"#, "faults[1].name: "),
        (#"{"faults": [], "seed": "one"}"#, "seed: expected a whole number"),
        (#"[]"#, "expected an object"),
    ])
    func aBadScenarioIs400AndChangesNothing(body: String, message: String) {
        client.send(.post, "/squall/faults", #"{"name": "old", "action": "reset"}"#)
        let reply = client.send(.post, "/squall/scenario", body)
        #expect(reply.status == 400)
        #expect(Self.says(reply.error, message), "\(reply.error ?? "")")
        #expect(runtime.rules.map(\.name) == ["old"])
    }

    @Test func theTranscriptIsJSONLinesFromAnIndex() {
        let reply = client.send(.get, "/squall/transcript?from=1")
        #expect(reply.status == 200)
        #expect(reply.head.fields["Content-Type"] == "application/x-ndjson")
        #expect(reply.head.fields["Squall-Transcript-Next"] == "3")
        #expect(String(decoding: reply.body, as: UTF8.self) == "{\"event\":\"request\"}\n{\"event\":\"close\"}\n")
        #expect(client.send(.get, "/squall/transcript").body.count > reply.body.count)
        let bad = client.send(.get, "/squall/transcript?from=-1")
        #expect(bad.status == 400)
    }

    @Test func metricsArePrometheusText() {
        runtime.state.withLock { state in
            state.metrics.bytesUpstream = 100
            state.metrics.bytesDownstream = 200
            state.metrics.connectionsAccepted = 3
            state.metrics.connectionsOpen = 1
            state.metrics.connectionsShed = 7
            state.metrics.faultsFired = ["cut \"40\"\\\n": 2, "a": 1]
            state.metrics.transcriptEvents = 120
            state.metrics.transcriptBytes = 30_000
            state.metrics.transcriptDropped = 4
        }
        let reply = client.send(.get, "/metrics")
        #expect(reply.status == 200)
        #expect(reply.head.fields["Content-Type"] == "text/plain; version=0.0.4")
        let lines = String(decoding: reply.body, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE squall_proxy_bytes_total counter"))
        #expect(lines.contains(#"squall_proxy_bytes_total{direction="upstream"} 100"#))
        #expect(lines.contains(#"squall_proxy_bytes_total{direction="downstream"} 200"#))
        #expect(lines.contains("squall_proxy_connections_accepted_total 3"))
        #expect(lines.contains("# TYPE squall_proxy_connections_open gauge"))
        #expect(lines.contains("squall_proxy_connections_open 1"))
        #expect(lines.contains("# TYPE squall_proxy_connections_shed_total counter"))
        #expect(lines.contains("squall_proxy_connections_shed_total 7"))
        #expect(
            lines.suffix(2) == [
                #"squall_proxy_faults_fired_total{rule="a"} 1"#,
                #"squall_proxy_faults_fired_total{rule="cut \"40\"\\\n"} 2"#,
            ])
        #expect(lines.contains("squall_proxy_transcript_events 120"))
        #expect(lines.contains("squall_proxy_transcript_bytes 30000"))
        #expect(lines.contains("# TYPE squall_proxy_transcript_dropped_total counter"))
        #expect(lines.contains("squall_proxy_transcript_dropped_total 4"))
        #expect(lines.filter { $0.hasPrefix("# HELP") }.count == 8)
        #expect(client.send(.post, "/metrics").status == 405)
    }

    @Test func theTokenGuardsTheNativeEndpoints() {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "s3cret"))
        handler.attach(runtime)
        #expect(
            ControlClient(handler).send(.post, "/squall/faults", #"{"name": "a", "action": "reset"}"#).status == 401)
        #expect(runtime.rules.isEmpty)
        #expect(ControlClient(handler, token: "s3cret").send(.get, "/squall/faults").status == 200)
    }
}
