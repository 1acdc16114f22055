import FaultEngine
import Foundation
import HTTPWire
import ResumableUpload
import Scenario
import SquallCore
import TestSupport
import Testing

@testable import Harness

/// Scenarios against a server the runner did not start (issue 15): a profile drives the client and the
/// expectations, needs it cannot meet skip the scenario with why, and the proxy keeps seeing every request.
@Suite struct OutsideServerTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    /// The reference server with bearer auth, in-process, as if started outside the runner (`squall server`'s
    /// progress policy, or a 104 every 64 KiB with `chatty`); returns it and a profile that matches it.
    static func authServer(store: String, chatty: Bool = false) throws -> (ScenarioServer, ServerProfile) {
        var spec = ServerSpec()
        spec.tokenTTL = .seconds(3600)
        if !chatty {
            spec.progressInterval = 1 << 20
            spec.progressLimit = 3
            spec.progressSpacing = .seconds(1)
        }
        let server = try ScenarioServer(spec: spec, store: store, asChildOf: nil)
        var profile = ServerProfile()
        profile.interop = [3, 4, 5, 6, 7, 8]
        profile.retention = .seconds(86_400)
        profile.auth = .endpoint(TokenRequest(url: server.url + "/_squall/token?principal=squall"))
        profile.introspection = Introspection(url: server.url + "/_squall/uploads/{id}", returns: .json)
        return (server, profile)
    }

    static func options(_ url: String, _ profile: ServerProfile) -> ScenarioRunOptions {
        var options = ScenarioRunOptions(upstream: url + "/upload")
        options.profile = profile
        return options
    }

    @Test func aResumedUploadAgainstAnAuthServerIsJudgedThroughItsProfile() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let (server, profile) = try Self.authServer(store: folder.path + "/store")
        defer { server.stop() }
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset", "times": 1}"#
        )
        let slow = try Self.rule(
            #"{"name": "slow", "action": "bandwidth", "rate": "4MiB", "direction": "upstream", "optional": true}"#)
        let scenario = Scenario(
            name: "outside-resume", description: "a reset at 40 % against an outside server", seed: 3,
            assets: [AssetSpec(name: "photo", size: 1 << 20)], faults: [cut, slow],
            expect: [
                .jobs(state: "succeeded", .all), .resumptions(.range(min: 1, max: nil)), .appendsAtServerOffset(true),
                .serverObjectsIntact(true), .serverResourceIDsRecorded(true), .requests(method: "POST", .exactly(1)),
            ])
        let result = ScenarioRunner.run(scenario, options: Self.options(server.url, profile))
        #expect(result.error == nil && result.skipReason == nil)
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed })")
        // Judged through the profile's introspection, not skipped; the token request went straight to the server
        // (the scenario is not about auth), so the proxy saw exactly one POST; the answers followed the draft.
        #expect(result.verdicts.first { $0.key == "server-objects-intact" }?.status == .passed)
        #expect(result.verdicts.first { $0.key == "server-conformance" }?.status == .passed)
        // Without the introspection the server's state is not observable: those verdicts are skipped, never passed.
        // A server sending a 104 every 64 KiB: the same run fails server-conformance on the informational count.
        let chattyFolder = try TLSFixtures.TemporaryDirectory()
        let (chatty, chattyProfile) = try Self.authServer(store: chattyFolder.path + "/store", chatty: true)
        defer { chatty.stop() }
        let noisy = ScenarioRunner.run(scenario, options: Self.options(chatty.url, chattyProfile))
        let conformance = try #require(noisy.verdicts.first { $0.key == "server-conformance" })
        #expect(conformance.status == .failed)
        #expect(conformance.evidence.first?.contains("informational-count") == true, "\(conformance)")
        var blind = profile
        blind.introspection = nil
        let skipped = ScenarioRunner.run(scenario, options: Self.options(server.url, blind))
        let intact = try #require(skipped.verdicts.first { $0.key == "server-objects-intact" })
        #expect(intact.status == .skipped)
        #expect(intact.observed.contains("the profile has no \"introspection\""))
    }

    @Test func aScenarioWhoseNeedsTheProfileDoesNotMeetIsSkippedWithWhy() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let (server, profile) = try Self.authServer(store: folder.path + "/store")
        defer { server.stop() }
        let restart = Scenario(
            name: "outside-restart", description: "needs a restart", assets: [AssetSpec(name: "a", size: 1000)],
            events: [ScenarioEvent(action: .restartServer, trigger: .time(.milliseconds(10)))],
            expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(restart, options: Self.options(server.url, profile))
        #expect(result.skipReason == "needs a way to restart the server keeping its uploads (a profile's \"restart\")")
        #expect(result.verdicts.isEmpty && result.passed)
        // A server that wants a token the profile does not say how to get: found at run time, skipped with why.
        var plain = ClientSpec()
        plain.interop = nil
        plain.interopGiven = true
        let upload = Scenario(
            name: "outside-plain", description: "a plain upload", client: plain,
            assets: [AssetSpec(name: "a", size: 1000)], expect: [.jobs(state: "succeeded", .all)])
        let unannounced = ScenarioRunner.run(upload, options: Self.options(server.url, ServerProfile()))
        #expect(
            unannounced.skipReason
                == "needs bearer-token auth: the server answered 401 to POST /upload (a profile's \"auth\")")
        #expect(unannounced.passed, "a skip never fails")
    }

    /// A server that announces its upload at its own absolute URL: the proxy points the client back at itself,
    /// so the resume (HEAD, PATCH) goes through the proxy too (each carries the proxy's `Forwarded`).
    @Test func anAbsoluteLocationOnTheUpstreamStillBringsTheResumeThroughTheProxy() throws {
        let server = try ScriptedServer { url in
            [
                ScriptedStep(respond: 200, fields: ["Upload-Limit": "min-size=0"]),
                ScriptedStep(
                    interims: [ScriptedStep.interim104(version: 8, location: url + "/files/1")], bodyLimit: 400,
                    ending: .reset),
                ScriptedStep(
                    respond: 204,
                    fields: [
                        "Upload-Offset": "400", "Upload-Complete": "?0", "Upload-Limit": "min-size=0",
                        "Cache-Control": "no-store",
                    ]),
                ScriptedStep(respond: 201, fields: ["Upload-Complete": "?1"]),
            ]
        }
        defer { server.stop() }
        var profile = ServerProfile()
        profile.interop = [8]
        let scenario = Scenario(
            name: "outside-location", description: "an absolute Location on the upstream",
            assets: [AssetSpec(name: "a", size: 1000)],
            expect: [.jobs(state: "succeeded", .all), .appendsAtServerOffset(true)])
        var options = ScenarioRunOptions(upstream: server.url + "/files")
        options.profile = profile
        let result = ScenarioRunner.run(scenario, options: options)
        #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed }) \(result.error ?? "")")
        let methods = server.requests.map(\.head.method)
        #expect(methods == [.options, .post, .head, .patch])
        #expect(server.requests.allSatisfy { $0.head.fields["Forwarded"] != nil }, "every request through the proxy")
        #expect(server.requests[2].head.target == "/files/1")
    }

    /// A server that answers 400 to a creation at a version it does not serve fails the jobs; `server-conformance`
    /// names its refusal (`unserved-version-refused`), so that the failure reads as the server's. The negative
    /// control: the same server serving the request as a plain upload passes the rule.
    @Test(arguments: [FlawedUploadServer.Flaw.rejectsUnknownVersions, .none])
    func aServerRefusingAVersionItDoesNotServeIsNamedByServerConformance(flaw: FlawedUploadServer.Flaw) throws {
        let server = try FlawedUploadServer(flaw: flaw, versions: [InteropVersion(rawValue: 6)!])
        defer { server.stop() }
        var profile = ServerProfile()
        profile.interop = [6]
        var client = ClientSpec()
        client.interop = 8
        client.interopGiven = true
        var spec = ServerSpec()
        spec.interop = [6]
        let scenario = Scenario(
            name: "unserved-version", description: "a creation at interop 8 to a server serving 6",
            server: spec, client: client, assets: [AssetSpec(name: "clip", size: 4096)],
            expect: [.jobs(state: "succeeded", .all)])
        let result = ScenarioRunner.run(scenario, options: Self.options(server.url, profile))
        #expect(result.skipReason == nil, "\(result.skipReason ?? "")")
        let conformance = try #require(result.verdicts.first { $0.key == "server-conformance" })
        if flaw == .none {
            #expect(result.passed, "\(result.verdicts.filter { $0.status != .passed })")
        } else {
            #expect(conformance.status == .failed)
            #expect(
                conformance.evidence.contains {
                    $0.contains(
                        "→ 400: unserved-version-refused: a 400 to a creation at interop 8, which the server "
                            + "does not serve (it serves 6)")
                }, "\(conformance.evidence)")
        }
    }
}
