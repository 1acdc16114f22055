import ChaosProxy
import ControlAPI
import FaultEngine
import Foundation
import SquallNet
import TestSupport
import Testing

@testable import SquallCLI

/// `squall fault …` against a `ControlServer` + `ControlAPIHandler` + `FakeRuntime`, in process.
struct FaultCommandTests {
    let runtime = FakeRuntime(
        connections: [
            LiveConnection(
                id: 7, proxy: "main", client: "127.0.0.1:5000", age: 1.5, bytesUpstream: 10, bytesDownstream: 20,
                requests: 2)
        ])
    let server: ControlServer
    let api: String

    init() throws {
        let handler = ControlAPIHandler(configuration: ControlAPIConfiguration(token: "t0k"))
        handler.attach(runtime)
        server = try ControlServer(address: try SocketAddress(parsing: "127.0.0.1:0"), handler: handler)
        api = "http://\(server.address)"
    }

    func squall(_ arguments: [String], token: Bool = true) -> (Int32, String, String) {
        let console = Console.capturing()
        let auth = token ? ["--api-token", "t0k"] : []
        let status = SquallCommand.run(
            arguments: Array(arguments.prefix(2)) + ["--api", api] + auth + arguments.dropFirst(2),
            context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    @Test func addBuildsTheFaultFromWordsAndFlags() throws {
        defer { server.stop() }
        let (status, out, err) = squall([
            "fault", "add", "slow", "bandwidth", "rate=64KiB", "--direction", "upstream", "--method", "PATCH",
            "--path", "/uploads/*", "--header", "Authorization=Bearer *", "--nth-request", "2", "--nth-connection",
            "1", "--at-offset", "40%", "--times", "1", "--probability", "0.5", "--optional",
        ])
        #expect(status == 0, "\(err)")
        let expected = try Self.rule(
            #"""
            {"name": "slow", "action": "bandwidth", "rate": "64KiB", "direction": "upstream",
             "match": {"method": "PATCH", "path": "/uploads/*", "header": {"name": "Authorization", "value": "Bearer *"},
                       "nth-request": 2, "nth-connection": 1},
             "trigger": {"at-offset": "40%"}, "times": 1, "probability": 0.5, "optional": true}
            """#)
        #expect(runtime.rules == [expected])
        #expect(out.hasPrefix("added slow  bandwidth  direction=upstream  match.header.name=Authorization"))
    }

    @Test func addReadsRespondHeadersAndOtherTriggers() throws {
        defer { server.stop() }
        #expect(squall(["fault", "add", "busy", "respond", "status=503", "headers.Retry-After=1", "body=busy"]).0 == 0)
        #expect(squall(["fault", "add", "later", "close", "--after", "2s"]).0 == 0)
        #expect(squall(["fault", "add", "win", "reset", "--window", "..500ms"]).0 == 0)
        #expect(squall(["fault", "add", "cut", "close", "--after-response-bytes", "1024"]).0 == 0)
        #expect(
            runtime.rules == [
                try Self.rule(
                    #"{"name": "busy", "action": "respond", "status": 503, "headers": {"Retry-After": "1"}, "body": "busy"}"#
                ),
                try Self.rule(#"{"name": "later", "action": "close", "trigger": {"after": "2s"}}"#),
                try Self.rule(#"{"name": "win", "action": "reset", "trigger": {"window": {"until": "500ms"}}}"#),
                try Self.rule(#"{"name": "cut", "action": "close", "trigger": {"after-response-bytes": 1024}}"#),
            ])
    }

    /// `--announcement` and `--announcement-wait` go beside `--at-offset` in the trigger; with another trigger they
    /// are a usage mistake naming the flag.
    @Test func addCarriesTheAnnouncementKeysOfAnOffsetTrigger() throws {
        defer { server.stop() }
        #expect(squall(["fault", "add", "early", "reset", "--at-offset", "30%", "--announcement", "before"]).0 == 0)
        #expect(squall(["fault", "add", "patient", "reset", "--at-offset", "30%", "--announcement-wait", "5s"]).0 == 0)
        #expect(
            runtime.rules == [
                try Self.rule(
                    #"{"name": "early", "action": "reset", "trigger": {"at-offset": "30%", "announcement": "before"}}"#),
                try Self.rule(
                    #"{"name": "patient", "action": "reset", "trigger": {"at-offset": "30%", "announcement-wait": "5s"}}"#
                ),
            ])
        let (status, _, err) = squall(["fault", "add", "later", "close", "--after", "2s", "--announcement", "before"])
        #expect(status == 2 && err.contains("--announcement goes with --at-offset"), "\(err)")
    }

    @Test func addPrintsTheServersErrorAndChangesNothing() {
        defer { server.stop() }
        let (status, out, err) = squall(["fault", "add", "slow", "bandwidth", "rate=0"])
        #expect(status == 1)
        #expect(out.isEmpty)
        #expect(
            err
                == "squall fault add: error: rate (line 1, column 44): bandwidth must be above 0 bytes/s; to stop, use stall\n"
        )
        let (unknown, _, unknownErr) = squall(["fault", "add", "x", "explode"])
        #expect(unknown == 1)
        #expect(unknownErr.contains(#"action (line 1, column 11): unknown action "explode""#))
        #expect(runtime.rules.isEmpty)
    }

    @Test func addReadsAFile() throws {
        defer { server.stop() }
        let folder = try TLSFixtures.TemporaryDirectory()
        let json = #"[{"name": "a", "action": "reset"}, {"name": "b", "action": "latency", "latency": "250ms"}]"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: folder.file("faults.json")))
        let (status, out, _) = squall(["fault", "add", "--file", folder.file("faults.json")])
        #expect(status == 0)
        #expect(out == "added a  reset\nadded b  latency  latency=250ms\n")
        #expect(runtime.rules.map(\.name) == ["a", "b"])
    }

    @Test func listRemoveAndConnections() throws {
        defer { server.stop() }
        try runtime.addFaultRules([
            try Self.rule(#"{"name": "cut", "action": "reset", "match": {"method": "PATCH"}, "times": 1}"#),
            try Self.rule(#"{"name": "slow down", "action": "latency", "latency": "1s"}"#),
        ])
        runtime.state.withLock {
            $0.statuses["slow down"] = FaultRuleStatus(
                name: "slow down", fired: 0, state: .unresolvable,
                reason: "70% of an upload whose length the proxy never learned")
        }
        let (listed, out, _) = squall(["fault", "list"])
        #expect(listed == 0)
        #expect(
            out
                == "cut  reset  match.method=PATCH  times=1  state=armed  fired=0\n"
                + "slow down  latency  latency=1s  state=unresolvable  fired=0  "
                + "reason: 70% of an upload whose length the proxy never learned\n")
        let (removed, removedOut, _) = squall(["fault", "remove", "slow down"])
        #expect(removed == 0)
        #expect(removedOut == "removed slow down\n")
        #expect(runtime.rules.map(\.name) == ["cut"])
        let (again, _, againErr) = squall(["fault", "remove", "slow down"])
        #expect(again == 1)
        #expect(againErr == "squall fault remove: error: no fault named \"slow down\"\n")
        let (connections, connectionsOut, _) = squall(["fault", "connections"])
        #expect(connections == 0)
        #expect(connectionsOut == "7  main  127.0.0.1:5000  age=1.5s  up=10  down=20  requests=2\n")
    }

    @Test func fireAppliesAnActionToALiveConnection() {
        defer { server.stop() }
        let (status, out, err) = squall([
            "fault", "fire", "7", "stall", "duration=2s", "then=close", "--direction", "upstream", "--name", "hold",
        ])
        #expect(status == 0, "\(err)")
        #expect(out == "fired hold on connection 7\n")
        #expect(
            runtime.fired == [
                FakeRuntime.Fired(
                    action: .stall(duration: .seconds(2), thenClose: true), direction: .upstream, connection: 7,
                    name: "hold")
            ])
        let (unknown, _, unknownErr) = squall(["fault", "fire", "8", "reset"])
        #expect(unknown == 1)
        #expect(unknownErr == "squall fault fire: error: no connection 8\n")
        #expect(runtime.fired.count == 1)
    }

    @Test func withoutTheTokenTheServerRefuses() {
        defer { server.stop() }
        let (status, _, err) = squall(["fault", "list"], token: false)
        #expect(status == 1)
        #expect(err == "squall fault list: error: missing or invalid bearer token\n")
    }

    @Test(arguments: [
        (["fault", "add", "x"], "name the fault and its action"),
        (["fault", "add", "x", "reset", "rate"], "expected an attribute KEY=VALUE"),
        (["fault", "add", "x", "reset", "--after", "1s", "--window", "1s..2s"], "a fault has one trigger"),
        (["fault", "add", "x", "reset", "--window", "5s"], "--window must be FROM..UNTIL"),
        (["fault", "add", "x", "reset", "--file", "f.json"], "--file replaces NAME ACTION"),
        (["fault", "fire", "7"], "name the connection and the action"),
        (["fault", "remove"], "name the fault"),
    ])
    func usageMistakesExitWith2AndSendNothing(arguments: [String], message: String) {
        defer { server.stop() }
        let (status, _, err) = squall(arguments)
        #expect(status == 2)
        #expect(err.contains(message), "\(err)")
        #expect(runtime.rules.isEmpty)
    }

    @Test(arguments: [
        (["fault", "list"], "--api URL is required"),
        (["fault", "list", "--api", "https://127.0.0.1:1"], "--api must be an http:// URL"),
        (["fault", "list", "--api", "http://nowhere"], "--api must name HOST:PORT"),
    ])
    func aMissingOrBadAPIIsAUsageMistake(arguments: [String], message: String) {
        defer { server.stop() }
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        #expect(status == 2)
        #expect(console.standardError.contains(message))
    }
}
