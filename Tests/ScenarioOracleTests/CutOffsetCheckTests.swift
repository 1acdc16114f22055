import HTTPWire
import ProxyTranscript
import Scenario
import Testing

@testable import ScenarioOracle

/// `server-offset-at-cut` from synthetic transcripts: a server that kept every byte before the cut passes; one
/// that kept fewer, a cut no HEAD follows, and a cut before the resource was announced fail (negative controls).
struct CutOffsetCheckTests {
    /// A creation announced by a 104 at `/uploads/7`, cut at 400; a 401 HEAD, then a HEAD reporting `reported`.
    private func cutCreation(reported: Int64?, announced: Bool = true) -> OracleFixtures.TranscriptBuilder {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.add(
            1,
            .requestHead(exchange: 1, RequestHead(method: .post, target: "/upload", fields: ["Upload-Length": "1000"])))
        if announced {
            builder.add(
                1,
                .interimResponse(
                    exchange: 1, ResponseHead(status: 104, fields: ["Location": "https://127.0.0.1:9/uploads/7"])))
        }
        builder.add(1, .requestBody(exchange: 1, offset: 0, length: 400, uploadOffset: 0))
        builder.fault(1, rule: "cut", action: "reset", offset: 400)
        builder.exchange(2, 1, .head, "/uploads/7", status: 401)
        if let reported {
            builder.exchange(2, 2, .head, "/uploads/7", status: 204, responseFields: ["Upload-Offset": "\(reported)"])
        }
        return builder
    }

    private func judge(_ builder: OracleFixtures.TranscriptBuilder, wanted: Bool = true) -> Verdict {
        let scenario = OracleFixtures.scenario([.serverOffsetAtCut(wanted)], count: 1)
        return ScenarioOracle.judge(scenario, OracleFixtures.observation(transcript: builder.transcript))[0]
    }

    @Test func theServerReportingTheCutsOffsetPasses() {
        let verdict = judge(cutCreation(reported: 400))
        #expect(verdict.status == .passed, "\(verdict)")
        #expect(verdict.observed == "true (1 cuts at an offset)")
        #expect(judge(cutCreation(reported: 400), wanted: false).status == .failed)
    }

    @Test func aServerThatKeptFewerBytesFails() {
        let verdict = judge(cutCreation(reported: 256))
        #expect(verdict.status == .failed)
        #expect(
            verdict.evidence == [
                "cut at 400 (conn 1 #1 POST /upload): conn 2 #2 HEAD /uploads/7 reported 256: 144 bytes lost"
            ])
    }

    @Test func aCutNoHeadFollowsFails() {
        let verdict = judge(cutCreation(reported: nil))
        #expect(verdict.status == .failed)
        #expect(verdict.evidence.first?.contains("no HEAD on /uploads/7 after the cut") == true, "\(verdict)")
    }

    @Test func aCutBeforeTheResourceWasAnnouncedFails() {
        let verdict = judge(cutCreation(reported: 400, announced: false))
        #expect(verdict.status == .failed)
        #expect(verdict.evidence.first?.contains("never announced") == true, "\(verdict)")
    }

    /// An `after-response-bytes` reset's offset counts response body bytes, not an upload offset (the catalog's
    /// `reset-after-response-bytes` cuts a token response at 16 bytes): it is no cut to judge.
    @Test func aResetAfterTheFinalResponseIsNotACutAtAnUploadOffset() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(1, 1, .post, "/_squall/token?principal=squall", status: 200)
        builder.fault(1, rule: "cut-token-body", action: "reset", offset: 16)
        let verdict = judge(builder)
        #expect(verdict.status == .passed, "\(verdict)")
        #expect(verdict.observed == "true (0 cuts at an offset)")
    }

    @Test func aCutInAnAppendIsJudgedOnItsTarget() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(
            1, 1, .patch, "/uploads/3", fields: ["Upload-Offset": "100"], body: 50, uploadOffset: 100, status: nil)
        builder.fault(1, rule: "cut-append", action: "reset", offset: 150)
        builder.exchange(2, 1, .head, "/uploads/3", status: 204, responseFields: ["Upload-Offset": "150"])
        #expect(judge(builder).status == .passed)
    }
}
