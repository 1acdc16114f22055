import Foundation
import HTTPWire
import ProxyTranscript
import Scenario
import Testing
import UploadJobs

@testable import ScenarioOracle

/// One negative control per expectation kind and per run verdict (issue 13): a run with one defect fails the
/// verdict, its observed value or evidence naming the offending job, request or count, and the same run without
/// the defect passes, so each verdict is seen to discriminate. docs/scenarios.md "Negative controls" lists them.
struct NegativeControlTests {
    typealias Fixture = OracleFixtures
    typealias Transfer = OracleFixtures.Transfer

    /// A scenario, a run with one defect and the same run without it.
    struct Control {
        /// The verdict's key (`jobs.succeeded`, `fault.reset-mid`).
        var verdict: String
        var scenario: Scenario
        var defective: RunObservation
        var clean: RunObservation
        /// The failed verdict's observed value.
        var observed: String
        /// A line of the failed verdict's evidence (the offending job or request); nil for a bare count.
        var evidence: String?
    }

    /// Every expectation key, then the run verdicts (`fault`, `event`, `timeout`).
    static let kinds = ScenarioExpectation.keys + ["fault", "event", "timeout", "requests-through-proxy"]

    @Test func everyExpectationKindAndRunVerdictHasANegativeControl() throws {
        #expect(Self.kinds.count == 28)
        for kind in Self.kinds {
            #expect(try Self.control(kind) != nil, "no negative control for \(kind)")
        }
    }

    @Test(arguments: kinds)
    func theDefectFailsTheVerdictAndTheSameRunWithoutItPasses(kind: String) throws {
        let control = try #require(try Self.control(kind))
        let failed = try #require(
            ScenarioOracle.judge(control.scenario, control.defective).first { $0.key == control.verdict },
            "\(kind): no verdict \(control.verdict)")
        #expect(failed.status == .failed, "\(failed)")
        #expect(failed.observed == control.observed, "\(failed)")
        if let line = control.evidence {
            #expect(failed.evidence.contains(line), "\(failed.evidence)")
        }
        let clean = ScenarioOracle.judge(control.scenario, control.clean)
        #expect(clean.allSatisfy { $0.status == .passed }, "\(clean)")
        let isExpectation = ScenarioExpectation.keys.contains(kind)
        #expect(clean.contains { $0.key == control.verdict } == isExpectation, "\(clean)")
    }

    /// Issue 13: a job resumed at 400 after writing 0..<500 of its 1000 bytes re-sent 100 bytes, and
    /// `retransmitted-bytes` says 100; with the resume exactly where the first write ended it says 0.
    @Test func aJobResumedThatResentOneHundredBytesCountsOneHundred() throws {
        let scenario = Fixture.scenario([.retransmittedBytes(.exactly(100))], count: 1)
        let resent = Fixture.observation(ledger: try Fixture.ledger([[Self.resumed(firstWrite: 500, at: 400)]]))
        let verdict = ScenarioOracle.judge(scenario, resent)[0]
        #expect(verdict.status == .passed, "\(verdict)")
        #expect(verdict.observed == "100")
        let exact = Fixture.observation(ledger: try Fixture.ledger([[Self.resumed(firstWrite: 400, at: 400)]]))
        #expect(ScenarioOracle.judge(scenario, exact)[0].observed == "0")
    }

    /// The documented limit of "beyond the asset's size": a job that never wrote its whole asset counts nothing,
    /// even when it wrote some bytes twice (a 400-byte attempt, then a 300-byte one from 0, then it gave up).
    @Test func aJobThatNeverSentItsWholeAssetCountsNoRetransmittedBytes() throws {
        let short = Transfer(ranges: [.init(offset: 0, length: 400)], failure: (.networkConnectionLost, nil))
        let shorter = Transfer(ranges: [.init(offset: 0, length: 300)], failure: (.networkConnectionLost, nil))
        let ledger = try Fixture.ledger(retryLimit: 1, [[short, shorter]])
        let scenario = Fixture.scenario([.retransmittedBytes(.exactly(0))], count: 1, retryLimit: 1)
        #expect(ScenarioOracle.judge(scenario, Fixture.observation(ledger: ledger))[0].status == .passed)
    }

    /// `acknowledged-bytes-kept` also fails when a server states an offset past the bytes the proxy carried to it:
    /// a HEAD reporting 401 after a creation whose 400 bytes were cut (the explore negative control's server).
    @Test func anOffsetPastTheBytesTheProxyCarriedIsNeverReceived() throws {
        func judged(reported: Int64) -> Verdict {
            var builder = OracleFixtures.TranscriptBuilder()
            builder.add(
                1,
                .requestHead(
                    exchange: 1, RequestHead(method: .post, target: "/upload", fields: ["Upload-Length": "1000"])))
            builder.add(
                1, .interimResponse(exchange: 1, ResponseHead(status: 104, fields: ["Location": "/uploads/7"])))
            builder.add(1, .requestBody(exchange: 1, offset: 0, length: 400, uploadOffset: 0))
            builder.fault(1, rule: "cut", action: "reset", offset: 400)
            builder.exchange(2, 1, .head, "/uploads/7", status: 204, responseFields: ["Upload-Offset": "\(reported)"])
            let scenario = Fixture.scenario([.acknowledgedBytesKept(true)], count: 1)
            return ScenarioOracle.judge(scenario, Fixture.observation(transcript: builder.transcript))[0]
        }
        let lie = judged(reported: 401)
        #expect(lie.status == .failed)
        #expect(
            lie.evidence.first
                == "conn 2 #1 HEAD → 204 for /uploads/7: Upload-Offset 401, but the proxy carried only 400 bytes of "
                + "that upload to the server: 1 bytes acknowledged that it never received", "\(lie.evidence)")
        #expect(judged(reported: 400).status == .passed)
    }

    // MARK: - The controls

    /// The control for `kind`, nil when there is none.
    static func control(_ kind: String) throws -> Control? {
        try ledgerControl(kind) ?? transcriptControl(kind) ?? countControl(kind) ?? runControl(kind)
    }

    /// A job run once, then failed with `networkConnectionLost` at 400 bytes and run again from 0.
    private static func failedOnce() -> [Transfer] {
        [Transfer(ranges: [.init(offset: 0, length: 400)], failure: (.networkConnectionLost, nil)), Fixture.clean()]
    }

    /// A 1000-byte job that wrote 0..<`firstWrite`, then resumed at `at` and wrote the rest.
    private static func resumed(firstWrite: Int64, at offset: Int64) -> Transfer {
        Transfer(
            ranges: [.init(offset: 0, length: firstWrite), .init(offset: offset, length: 1000 - offset)],
            resumes: [offset])
    }

    private static func control(
        _ verdict: String, _ expectation: ScenarioExpectation, count: Int = 2, retryLimit: Int = 3,
        defective: RunObservation, clean: RunObservation, observed: String, evidence: String?
    ) -> Control {
        Control(
            verdict: verdict, scenario: Fixture.scenario([expectation], count: count, retryLimit: retryLimit),
            defective: defective, clean: clean, observed: observed, evidence: evidence)
    }

    /// The expectations judged from the client's ledger (and the server's uploads).
    private static func ledgerControl(_ kind: String) throws -> Control? {
        let clean = Fixture.observation(ledger: try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]]))
        let retried = Fixture.observation(ledger: try Fixture.ledger([[Fixture.clean()], failedOnce()]))
        switch kind {
        case "jobs":
            let failing = Transfer(ranges: [.init(offset: 0, length: 10)], failure: (.badServerResponse, 500))
            let failed = Fixture.observation(ledger: try Fixture.ledger(retryLimit: 0, [[Fixture.clean()], [failing]]))
            return control(
                "jobs.succeeded", .jobs(state: "succeeded", .all), defective: failed, clean: clean, observed: "1",
                evidence: "job-2 (photo-2): failed")
        case "acknowledged-once":
            return control(
                kind, .acknowledgedOnce(true), count: 1, defective: Fixture.observation(ledger: try unacknowledged()),
                clean: Fixture.observation(ledger: try Fixture.ledger([[Fixture.clean()]])),
                observed: "false (1 of 1 jobs not)", evidence: "job-1 (photo-1): acknowledged 0 times")
        case "acknowledged-at-most-once":
            return control(
                kind, .acknowledgedAtMostOnce(true), count: 1,
                defective: Fixture.observation(ledger: try acknowledgedTwice()),
                clean: Fixture.observation(ledger: try unacknowledged()), observed: "false (1 of 1 jobs not)",
                evidence: "job-1 (photo-1): acknowledged 2 times")
        case "no-job-lost":
            let ledger = try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]])
            let intact = [upload("u1", sha: "sha-1"), upload("u2", sha: "sha-2")]
            return control(
                kind, .noJobLost(true),
                defective: Fixture.observation(ledger: ledger, serverUploads: [upload("u1", sha: "sha-1")]),
                clean: Fixture.observation(ledger: ledger, serverUploads: intact),
                observed: "false (1 of 2 assets not)",
                evidence: "job-2 (photo-2) succeeded, but no complete upload on the server has its sha256 sha-2")
        case "acknowledged-bytes-kept":
            return control(
                kind, .acknowledgedBytesKept(true), count: 1,
                defective: Fixture.observation(transcript: progressThenHead(acknowledged: 600, reported: 400)),
                clean: Fixture.observation(transcript: progressThenHead(acknowledged: 400, reported: 400)),
                observed: "false (1 of 1 uploads not)",
                evidence: "conn 2 #1 HEAD → 204 for /uploads/7: Upload-Offset 400 after the server had acknowledged "
                    + "600 (conn 1 #1 POST → 104): 200 acknowledged bytes lost")
        case "no-avoidable-duplicates":
            func ledger(firstKnown: Bool) throws -> JobLedger {
                let cut = Transfer(
                    ranges: [.init(offset: 0, length: 1000)], failure: (.networkConnectionLost, nil),
                    location: firstKnown ? "https://127.0.0.1:1/uploads/u1" : nil)
                var again = Fixture.clean()
                again.location = "https://127.0.0.1:1/uploads/u2"
                return try Fixture.ledger([[cut, again]])
            }
            let copies = [upload("u1", sha: "sha-1"), upload("u2", sha: "sha-1")]
            return control(
                kind, .noAvoidableDuplicates(true), count: 1,
                defective: Fixture.observation(ledger: try ledger(firstKnown: true), serverUploads: copies),
                clean: Fixture.observation(ledger: try ledger(firstKnown: false), serverUploads: copies),
                observed: "false (1 of 2 complete uploads not)",
                evidence: "photo-1: 2 complete copies, of which the client knew u1, u2 and still uploaded again")
        case "attempts":
            return control(
                kind, .attempts(.exactly(1)), defective: retried, clean: clean, observed: "1…2 per job",
                evidence: "job-2 (photo-2): 2 attempts")
        case "retries":
            return control(
                kind, .retries(.exactly(0)), defective: retried, clean: clean, observed: "0…1 per job",
                evidence: "job-2 (photo-2): 1 retries")
        case "retry-limit-respected":
            return control(
                kind, .retryLimitRespected(true), retryLimit: 0, defective: retried, clean: clean,
                observed: "false (1 of 2 jobs not)", evidence: "job-2 (photo-2): 1 retries, limit 0")
        case "resumptions":
            let resumes = try Fixture.ledger([[resumed(firstWrite: 400, at: 400)], [Fixture.clean()]])
            return control(
                kind, .resumptions(.exactly(0)), defective: Fixture.observation(ledger: resumes), clean: clean,
                observed: "1", evidence: "job-1 (photo-1): resumed at 400")
        case "retransmitted-bytes":
            let resent = try Fixture.ledger([[resumed(firstWrite: 500, at: 400)], [Fixture.clean()]])
            let exact = try Fixture.ledger([[resumed(firstWrite: 400, at: 400)], [Fixture.clean()]])
            return control(
                kind, .retransmittedBytes(.exactly(0)), defective: Fixture.observation(ledger: resent),
                clean: Fixture.observation(ledger: exact), observed: "100",
                evidence: "job-1 (photo-1): 100 bytes sent again")
        case "restarts-from-zero":
            return control(
                kind, .restartsFromZero(.exactly(0)), defective: retried, clean: clean, observed: "1",
                evidence: "job-2 (photo-2): 1 restarts from byte 0")
        case "job-errors":
            return control(
                "job-errors.networkConnectionLost", .jobErrors(code: "networkConnectionLost", .exactly(0)),
                defective: retried, clean: clean, observed: "1", evidence: "job-2 (photo-2): 1 × networkConnectionLost")
        case "server-objects-intact":
            let ledger = try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]])
            let corrupt = [upload("u1", sha: "sha-1"), upload("u2", sha: "corrupt")]
            let intact = [upload("u1", sha: "sha-1"), upload("u2", sha: "sha-2")]
            return control(
                kind, .serverObjectsIntact(true),
                defective: Fixture.observation(ledger: ledger, serverUploads: corrupt),
                clean: Fixture.observation(ledger: ledger, serverUploads: intact),
                observed: "false (1 of 2 assets, 2 complete uploads not)",
                evidence: "job-2 (photo-2): 0 complete uploads with sha256 sha-2")
        case "server-resource-ids-recorded":
            let uploads = [upload("u1", sha: "sha-1"), upload("u2", sha: "sha-2")]
            let wrong = try Fixture.ledger([[Fixture.clean(resourceID: "u1")], [Fixture.clean(resourceID: "u9")]])
            let right = try Fixture.ledger([[Fixture.clean(resourceID: "u1")], [Fixture.clean(resourceID: "u2")]])
            return control(
                kind, .serverResourceIDsRecorded(true),
                defective: Fixture.observation(ledger: wrong, serverUploads: uploads),
                clean: Fixture.observation(ledger: right, serverUploads: uploads),
                observed: "false (1 of 2 succeeded jobs not)",
                evidence: "job-2 (photo-2): recorded u9, not a server upload")
        default:
            return nil
        }
    }

    /// The expectations judged from the proxy's transcript.
    private static func transcriptControl(_ kind: String) -> Control? {
        switch kind {
        case "appends-at-server-offset":
            return control(
                kind, .appendsAtServerOffset(true), count: 1,
                defective: Fixture.observation(transcript: cutAndResumed(reported: 400, resumeAt: 0)),
                clean: Fixture.observation(transcript: cutAndResumed(reported: 400, resumeAt: 400)),
                observed: "false (1 of 1 appends after a HEAD not)",
                evidence: "conn 2 #2 PATCH /uploads/7 Upload-Offset: 0: sent 0, server reported 400 (conn 2 #1 HEAD)")
        case "server-offset-at-cut":
            return control(
                kind, .serverOffsetAtCut(true), count: 1,
                defective: Fixture.observation(transcript: cutAndResumed(reported: 256, resumeAt: 256)),
                clean: Fixture.observation(transcript: cutAndResumed(reported: 400, resumeAt: 400)),
                observed: "false (1 of 1 cuts at an offset not)",
                evidence: "cut at 400 (conn 1 #1 POST /upload): conn 2 #1 HEAD /uploads/7 reported 256: 144 bytes lost")
        case "refused-streams-retried":
            return control(
                kind, .refusedStreamsRetried(true), count: 1,
                defective: Fixture.observation(transcript: RefusedStreamsCheckTests.refusedAppend(sentAgain: false)),
                clean: Fixture.observation(transcript: RefusedStreamsCheckTests.refusedAppend(sentAgain: true)),
                observed: "false (1 of 1 refused requests not)",
                evidence:
                    "conn 3 #1 PATCH /uploads/7 Upload-Offset: 512 was refused (REFUSED_STREAM) and never sent again")
        case "auth-refreshes":
            return control(
                kind, .authRefreshes(.exactly(0)), count: 1,
                defective: Fixture.observation(transcript: tokens(2)),
                clean: Fixture.observation(transcript: tokens(1)),
                observed: "1", evidence: "conn 2 #1 POST /_squall/token?principal=squall")
        case "server-conformance":
            // An interop 6 creation whose final response uses interop 3's completion field (as a real server did).
            let fields: HTTPFields = ["Upload-Draft-Interop-Version": "6", "Upload-Complete": "?1"]
            var wrong = OracleFixtures.TranscriptBuilder()
            wrong.exchange(
                1, 1, .post, "/upload", fields: fields, body: 1000, status: 201,
                responseFields: ["Upload-Offset": "1000", "Upload-Incomplete": "?0"])
            var right = OracleFixtures.TranscriptBuilder()
            right.exchange(
                1, 1, .post, "/upload", fields: fields, body: 1000, status: 201,
                responseFields: ["Upload-Offset": "1000", "Upload-Complete": "?1"])
            return control(
                kind, .serverConformance(true, allowed: []), count: 1,
                defective: Fixture.observation(transcript: wrong.transcript),
                clean: Fixture.observation(transcript: right.transcript), observed: "false (1 of 1 exchanges not)",
                evidence:
                    "conn 1 #1 POST /upload → 201: completion-field: Upload-Incomplete: ?0 in a 201 to an interop 6 "
                    + "request, which uses Upload-Complete")
        case "requests":
            var withoutHead = OracleFixtures.TranscriptBuilder()
            withoutHead.exchange(1, 1, .post, "/upload", body: 1000, status: 201)
            var withHead = withoutHead
            withHead.exchange(2, 1, .head, "/uploads/7", status: 204, responseFields: ["Upload-Offset": "1000"])
            return control(
                "requests.HEAD", .requests(method: "HEAD", .exactly(0)), count: 1,
                defective: Fixture.observation(transcript: withHead.transcript),
                clean: Fixture.observation(transcript: withoutHead.transcript), observed: "1",
                evidence: "conn 2 #1 HEAD /uploads/7")
        default:
            return nil
        }
    }

    /// The counters of the run: no job or request to name, the observed value says it.
    private static func countControl(_ kind: String) -> Control? {
        switch kind {
        case "peak-in-flight":
            return control(
                kind, .peakInFlight(.range(min: nil, max: 1)), defective: Fixture.observation(peakInFlight: 2),
                clean: Fixture.observation(peakInFlight: 1), observed: "2", evidence: nil)
        case "process-jobs-results":
            return control(
                "process-jobs-results.failure", .processJobsResults(result: "failure", .exactly(0)),
                defective: Fixture.observation(processJobsResults: ["processing", "failure", "completed"]),
                clean: Fixture.observation(processJobsResults: ["processing", "completed"]), observed: "1",
                evidence: nil)
        case "wall-time":
            return control(
                kind, .wallTime(max: .seconds(2)), defective: Fixture.observation(wallTime: .milliseconds(2500)),
                clean: Fixture.observation(wallTime: .milliseconds(1500)), observed: "2.500s", evidence: nil)
        default:
            return nil
        }
    }

    /// The verdicts every run gets: a declared fault that never fired, an event that never played, the timeout, an
    /// upload resumed off the proxy.
    private static func runControl(_ kind: String) throws -> Control? {
        let scenario = Fixture.scenario([])
        switch kind {
        case "fault":
            var defective = Fixture.observation(neverFired: ["cut-at-70"])
            let reason = "70% of an upload whose length the proxy never learned (PATCH /uploads/7)"
            defective.neverFiredReasons = ["cut-at-70": reason]
            return Control(
                verdict: "fault.cut-at-70", scenario: scenario, defective: defective, clean: Fixture.observation(),
                observed: "never fired", evidence: "declared fault cut-at-70 never fired: " + reason)
        case "event":
            let trigger = "at-progress 70% of photo-1"
            let notPlayed = "the upload of photo-1 got to 40% (400 of 1000 bytes)"
            var defective = Fixture.observation()
            defective.events = [EventRecord(index: 0, event: "switch-network", trigger: trigger, notPlayed: notPlayed)]
            var clean = Fixture.observation()
            clean.events = [
                EventRecord(
                    index: 0, event: "switch-network", trigger: trigger, runMicroseconds: 120_000,
                    did: ["reset conn 1"])
            ]
            return Control(
                verdict: "event.0.switch-network", scenario: scenario, defective: defective, clean: clean,
                observed: "never played", evidence: "event switch-network \(trigger) never played: \(notPlayed)")
        case "requests-through-proxy":
            // The server announced its upload at an origin that is not the proxy's: the resume bypassed it.
            var defective = Fixture.observation(ledger: try resumedAt("http://127.0.0.1:9/files/1"))
            defective.proxyOrigin = "https://127.0.0.1:8443"
            var clean = Fixture.observation(ledger: try resumedAt("https://127.0.0.1:8443/files/1"))
            clean.proxyOrigin = "https://127.0.0.1:8443"
            return Control(
                verdict: kind, scenario: scenario, defective: defective, clean: clean,
                observed: "1 upload resources elsewhere",
                evidence: "job-1 (/assets/photo-1): resumed at http://127.0.0.1:9/files/1, not through the proxy")
        case "timeout":
            return Control(
                verdict: "timeout", scenario: scenario,
                defective: Fixture.observation(wallTime: .seconds(30), timedOut: true),
                clean: Fixture.observation(wallTime: .seconds(2)), observed: "stopped at the timeout after 30.000s",
                evidence: "the run did not complete within the scenario's timeout")
        default:
            return nil
        }
    }
}
