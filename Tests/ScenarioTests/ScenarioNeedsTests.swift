import FaultEngine
import Testing

@testable import Scenario

/// What a scenario needs of an outside server (issue 15 item 2): each kind of need is unmet by a profile that lacks
/// it and met by one that gives it, so a skip is never for nothing and never missing.
struct ScenarioNeedsTests {
    static func scenario(
        server: ServerSpec = ServerSpec(), client: ClientSpec = ClientSpec(), faults: [String] = [],
        events: [ScenarioEvent] = [], expect: [ScenarioExpectation] = [.jobs(state: "succeeded", .all)]
    ) throws -> Scenario {
        Scenario(
            name: "s", description: "d", timeout: .seconds(30), server: server, client: client,
            assets: [AssetSpec(name: "a", size: 1000)], faults: try faults.map { try FaultRule.parse($0) },
            events: events, expect: expect)
    }

    /// A profile that serves everything a scenario can ask for.
    static var everything: ServerProfile {
        var profile = ServerProfile()
        profile.interop = [3, 4, 5, 6, 7, 8]
        profile.auth = .command(["print-token"])
        profile.tokenTTL = .seconds(1)
        profile.expireTokens = .command(["expire"])
        profile.restart = .command(["restart"])
        profile.retention = .seconds(3600)
        profile.maxSize = 1
        profile.maxAppendSize = 1
        profile.maxAge = .seconds(1)
        return profile
    }

    static func unmet(_ scenario: Scenario, _ change: (inout ServerProfile) -> Void = { _ in }) -> [String] {
        var profile = everything
        change(&profile)
        return ScenarioNeeds.unmet(scenario, profile: profile)
    }

    @Test func aPlainScenarioNeedsOnlyAnInteropVersionAndTheClientOffersTheNewest() throws {
        let plain = try Self.scenario()
        #expect(
            ScenarioNeeds.unmet(plain, profile: ServerProfile()) == [
                "the interop versions the server serves (a profile's \"interop\")"
            ])
        var profile = ServerProfile()
        profile.interop = [3, 5, 6]
        #expect(ScenarioNeeds.unmet(plain, profile: profile) == [])
        #expect(ScenarioNeeds.clientInterop(plain, profile: profile) == 6)
        var none = ClientSpec()
        none.interop = nil
        none.interopGiven = true
        #expect(ScenarioNeeds.unmet(try Self.scenario(client: none), profile: ServerProfile()) == [], "plain uploads")
    }

    @Test func aVersionTheScenarioChoosesMustBeServedAndARestrictedServerMustNotServeTheClients() throws {
        var three = ClientSpec()
        three.interop = 3
        three.interopGiven = true
        #expect(
            Self.unmet(try Self.scenario(client: three)) { $0.interop = [5, 6] } == [
                "a server that serves interop 3 (it serves 5, 6)"
            ])
        var onlyOld = ServerSpec()
        onlyOld.interop = [3, 5]
        var eight = ClientSpec()
        eight.interop = 8
        eight.interopGiven = true
        let restricted = try Self.scenario(server: onlyOld, client: eight)
        #expect(Self.unmet(restricted) == ["a server that does not serve interop 8 (it serves 3, 4, 5, 6, 7, 8)"])
        #expect(Self.unmet(restricted) { $0.interop = [3, 5] } == [])
    }

    @Test func eachServerSettingNeedsItsLikeAndIsMetByIt() throws {
        var spec = ServerSpec()
        spec.resumable = false
        #expect(
            Self.unmet(try Self.scenario(server: spec)).first?.hasPrefix("a server that offers no resumable") == true)
        #expect(Self.unmet(try Self.scenario(server: spec)) { $0.resumable = false } == [])
        spec = ServerSpec()
        spec.progressInterval = 0
        #expect(Self.unmet(try Self.scenario(server: spec)).first?.contains("no progress 104s") == true)
        #expect(Self.unmet(try Self.scenario(server: spec)) { $0.progress104 = false } == [])
        spec = ServerSpec()
        spec.maxSize = 256 * 1024
        spec.maxAppendSize = 1024
        spec.maxAge = .seconds(60)
        #expect(Self.unmet(try Self.scenario(server: spec)) == [])
        let larger = Self.unmet(try Self.scenario(server: spec)) {
            $0.maxSize = 1 << 30
            $0.maxAppendSize = nil
            $0.maxAge = .seconds(3600)
        }
        #expect(larger.count == 3)
        #expect(larger.first == "a size limit of at most 262144 bytes (a profile's \"limits\".\"max-size\")")
    }

    @Test func authNeedsATokenARefreshableOneForRefreshesAndAWayToExpireThem() throws {
        var spec = ServerSpec()
        spec.tokenTTL = .seconds(3600)
        let auth = try Self.scenario(server: spec, expect: [.authRefreshes(.range(min: 1, max: nil))])
        #expect(Self.unmet(auth) == [])
        #expect(Self.unmet(auth) { $0.auth = nil } == ["bearer-token auth (a profile's \"auth\")"])
        #expect(
            Self.unmet(auth) { $0.auth = .fixed("t") } == [
                "tokens the client can refresh (a profile's auth as a token-url or a command)"
            ])
        let expiring = try Self.scenario(events: [ScenarioEvent(action: .expireTokens, trigger: .time(.zero))])
        #expect(
            Self.unmet(expiring) { $0.expireTokens = nil } == [
                "a way to expire every token (a profile's \"tokens\".\"expire\")"
            ])
        spec.tokenTTL = .seconds(2)
        #expect(
            Self.unmet(try Self.scenario(server: spec)) { $0.tokenTTL = nil } == [
                "tokens that expire within 2s (a profile's \"tokens\".\"ttl\")"
            ])
        // A fault's 401 must find a client without a token.
        let rejects = try Self.scenario(faults: [#"{"name": "no", "action": "respond", "status": 401}"#])
        #expect(Self.unmet(rejects).first?.hasPrefix("a server that needs no bearer token") == true)
        #expect(Self.unmet(rejects) { $0.auth = nil } == [])
        #expect(!ScenarioNeeds.involvesAuth(rejects) && ScenarioNeeds.involvesAuth(auth))
    }

    @Test func eventsAndLostAnswersNeedARestartAndRetention() throws {
        let restart = try Self.scenario(events: [ScenarioEvent(action: .restartServer, trigger: .time(.zero))])
        #expect(
            Self.unmet(restart) { $0.restart = nil } == [
                "a way to restart the server keeping its uploads (a profile's \"restart\")"
            ])
        for fault in [
            #"{"name": "f", "action": "drop-response"}"#, #"{"name": "f", "action": "truncate-response", "after": 1}"#,
            #"{"name": "f", "trigger": {"after-response-bytes": 1}, "action": "reset"}"#,
            #"{"name": "f", "action": "delay-response", "duration": "6s"}"#,
        ] {
            let lost = try Self.scenario(faults: [fault])
            #expect(ScenarioNeeds.needsRetention(lost), "\(fault)")
            #expect(Self.unmet(lost) { $0.retention = nil }.first?.hasPrefix("completed uploads kept") == true)
            #expect(Self.unmet(lost) == [])
        }
        #expect(
            !ScenarioNeeds.needsRetention(
                try Self.scenario(faults: [
                    #"{"name": "f", "action": "delay-response", "duration": "100ms"}"#
                ])), "within the read timeout the answer arrives")
        let token = try Self.scenario(faults: [
            #"{"name": "f", "match": {"path": "/_squall/token*"}, "action": "truncate-response", "after": 1}"#
        ])
        #expect(!ScenarioNeeds.needsRetention(token))
        #expect(Self.unmet(token) == ["the reference server (a fault matches its /_squall/ endpoints)"])
    }
}
