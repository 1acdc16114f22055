import HTTPWire
import ProxyTranscript
import Scenario
import Testing
import UploadJobs

@testable import ScenarioOracle

/// Evidence that names a count's cause (issue 26): a creation cut before the client had its announcement, and a
/// failure that was permanent only by the built-in policy's default. Each is shown when it happened and absent when
/// it did not (the negative control beside each).
struct CauseEvidenceTests {
    typealias Fixture = OracleFixtures

    static let creation: HTTPFields = [
        "Upload-Draft-Interop-Version": "8", "Upload-Complete": "?1", "Content-Length": "1000",
    ]
    static let announcement = ResponseHead(
        status: 104, fields: ["Upload-Draft-Interop-Version": "8", "Location": "https://h/upload/7"])

    /// A creation cut at 500 (a fault, then the proxy's RST), its 104 arriving `announced` (before the cut, after
    /// it, or not at all), and what the client was told of it as the proxy records it (`told`: written when the 104
    /// was, else at the connection's end).
    static func cutCreation(
        announced: Int?, told: ClientAnnouncementOutcome? = nil, shapedBy: String? = nil
    ) -> Transcript {
        var transcript = Transcript()
        func add(_ milliseconds: Int, _ kind: TranscriptEvent.Kind) {
            transcript.append(TranscriptEvent(time: .milliseconds(milliseconds), connection: 1, kind: kind))
        }
        add(1, .requestHead(exchange: 1, RequestHead(method: .post, target: "/upload", fields: creation)))
        add(2, .requestBody(exchange: 1, offset: 0, length: 500, uploadOffset: 0))
        if announced == 0 { add(3, .interimResponse(exchange: 1, announcement)) }
        let telling = told.map {
            TranscriptEvent.Kind.clientAnnouncement(exchange: 1, location: "/upload/7", outcome: $0)
        }
        if let telling, told == .written { add(3, telling) }
        add(4, .faultFired(FiredFault(rule: "cut", action: "reset", direction: .both, offset: 500)))
        if let shapedBy { add(4, .faultFired(FiredFault(rule: shapedBy, action: "latency", direction: .both))) }
        if let telling, told != .written { add(4, telling) }
        add(4, .closed(side: .proxy, kind: .rst))
        if announced == 1 { add(5, .interimResponse(exchange: 1, announcement)) }
        return transcript
    }

    @Test func aCreationCutBeforeItsAnnouncementIsNamedWithBothTimes() {
        let late = UnannouncedCuts.lines(Self.cutCreation(announced: nil), events: [])
        #expect(
            late == [
                "conn 1 #1 POST /upload was cut at 0.004s (fault cut: reset at upload offset 500) before the client had "
                    + "the server's 104 announcing the upload (no 104 came): the client could not resume it"
            ])
        let kept = UnannouncedCuts.lines(Self.cutCreation(announced: 0, told: .withheld(rule: "cut")), events: [])
        #expect(kept.first?.contains("its 104 came at 0.003s, kept from the client by cut") == true, "\(kept)")
        // The negative control: the 104 reached the client before the cut.
        #expect(UnannouncedCuts.lines(Self.cutCreation(announced: 0, told: .written), events: []) == [])
    }

    /// Why a 104 the proxy received did not reach the client is what the proxy recorded (`client_announcement`), not
    /// inferred: stripped, or still unwritten when the connection ended. The control: written.
    @Test(arguments: [
        (ClientAnnouncementOutcome.stripped(rule: "no-104"), "stripped by no-104" as String?),
        (.unwritten, "not yet written to the client when the connection ended"),
        (.written, nil),
    ])
    func whyThe104DidNotReachTheClientIsWhatTheProxyRecorded(told: ClientAnnouncementOutcome, reason: String?) {
        let lines = UnannouncedCuts.lines(Self.cutCreation(announced: 0, told: told), events: [])
        #expect(lines.first.map { line in reason.map(line.contains) ?? false } ?? (reason == nil), "\(lines)")
        #expect(lines.isEmpty == (reason == nil))
    }

    /// The cause is the last fault that interrupts an upload, not a shaping effect fired after it. The control: the
    /// same transcript without the shaping names the same cut.
    @Test func theCauseIsTheLastInterruptingFault() {
        for shapedBy in [nil, "slow"] {
            let lines = UnannouncedCuts.lines(Self.cutCreation(announced: nil, shapedBy: shapedBy), events: [])
            #expect(lines.first?.contains("(fault cut: reset at upload offset 500)") == true, "\(lines)")
        }
    }

    @Test func aFailedCountCarriesTheCutsEvidence() throws {
        let cut = Fixture.Transfer(ranges: [.init(offset: 0, length: 500), .init(offset: 0, length: 1000)])
        var observation = Fixture.observation(ledger: try Fixture.ledger([[cut]]), assets: Fixture.assets(count: 1))
        observation.transcript = Self.cutCreation(announced: nil)
        let scenario = Fixture.scenario([.restartsFromZero(.exactly(0))], count: 1)
        let verdict = try #require(ScenarioOracle.judge(scenario, observation).first)
        #expect(verdict.status == .failed)
        #expect(verdict.evidence.contains { $0.contains("before the client had the server's 104") }, "\(verdict)")
    }

    static let failed503 = Fixture.Transfer(
        ranges: [.init(offset: 0, length: 1000)], failure: (.badServerResponse, 503))

    @Test func aFailureThatIsPermanentOnlyByDefaultSaysWhichKeyChangesIt() throws {
        let ledger = try Fixture.ledger(retryLimit: 0, [[Self.failed503]])
        let scenario = Fixture.scenario([.jobs(state: "succeeded", .all)], count: 1, retryLimit: 0)
        let observation = Fixture.observation(ledger: ledger, assets: Fixture.assets(count: 1))
        let verdict = try #require(ScenarioOracle.judge(scenario, observation).first)
        let note: String =
            "job-1 (photo-1) failed with badServerResponse, HTTP 503: permanent only by the built-in policy's "
            + "default, client.permanent-errors [\"badServerResponse\", \"userAuthenticationRequired\"]: every 5xx "
            + "and other non-2xx final status (a gateway's 502 while the server restarts, a 503 with Retry-After "
            + "included) fails the job at once; to have it retried, set client.permanent-errors without "
            + "\"badServerResponse\""
        #expect(verdict.evidence.last == note)
        // The negative controls: the scenario chose the permanent errors, or an app's extension decided.
        var chosen = scenario
        chosen.client.permanentErrors = ["badServerResponse"]
        #expect(ScenarioOracle.judge(chosen, observation).first?.evidence.count == 1)
        var hosted = observation
        hosted.extensionConduct = []
        #expect(
            ScenarioOracle.judge(scenario, hosted).first { $0.key == "jobs.succeeded" }?.evidence.count == 1)
    }
}
