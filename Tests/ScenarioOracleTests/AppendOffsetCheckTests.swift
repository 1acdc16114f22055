import HTTPWire
import Scenario
import Testing

@testable import ScenarioOracle

/// `appends-at-server-offset` from synthetic transcripts: a client that resumes at the HEAD's offset passes; a
/// client that never resumes from the server's offset (negative control of issue 6) fails with the PATCH named.
struct AppendOffsetCheckTests {
    /// A creation cut at 400 bytes, a HEAD answering `Upload-Offset: 400`, then a PATCH from `resumeAt` in two
    /// chunks (the second after the first's 204 with its new offset).
    private func resumedUpload(resumeAt: Int64, secondChunkAt: Int64 = 700) -> OracleFixtures.TranscriptBuilder {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(1, 1, .post, "/upload", fields: ["Upload-Complete": "?1"], body: 400, status: nil)
        builder.fault(1, rule: "reset-mid", action: "reset", offset: 400)
        builder.exchange(2, 1, .head, "/uploads/7", status: 204, responseFields: ["Upload-Offset": "400"])
        builder.exchange(
            2, 2, .patch, "http://127.0.0.1:9/uploads/7?x=1", fields: ["Upload-Offset": "\(resumeAt)"], body: 300,
            uploadOffset: resumeAt, status: 204, responseFields: ["Upload-Offset": "\(resumeAt + 300)"])
        builder.exchange(
            2, 3, .patch, "/uploads/7", fields: ["Upload-Offset": "\(secondChunkAt)"], body: 300,
            uploadOffset: secondChunkAt, status: 201)
        return builder
    }

    private func judge(_ builder: OracleFixtures.TranscriptBuilder, wanted: Bool = true) -> Verdict {
        let scenario = OracleFixtures.scenario([.appendsAtServerOffset(wanted)], count: 1)
        return ScenarioOracle.judge(scenario, OracleFixtures.observation(transcript: builder.transcript))[0]
    }

    @Test func appendsAtTheReportedOffsetPass() {
        let verdict = judge(resumedUpload(resumeAt: 400))
        #expect(verdict.status == .passed)
        #expect(verdict.observed == "true (2 appends after a HEAD)")
        #expect(judge(resumedUpload(resumeAt: 400), wanted: false).status == .failed)
    }

    @Test func aClientThatNeverResumesFromTheServersOffsetFails() {
        let verdict = judge(resumedUpload(resumeAt: 0, secondChunkAt: 300))
        #expect(verdict.status == .failed)
        #expect(verdict.expected == "true")
        #expect(verdict.observed == "false (1 of 2 appends after a HEAD not)")
        #expect(
            verdict.evidence == [
                "conn 2 #2 PATCH http://127.0.0.1:9/uploads/7?x=1 Upload-Offset: 0: sent 0, server reported 400 "
                    + "(conn 2 #1 HEAD)",
                "fault reset-mid (reset, upstream) on conn 1 at offset 400, 0.003s",
            ])
    }

    @Test func aChunkAfterAnAcceptedAppendWithoutUploadOffsetUsesTheBytesSent() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(1, 1, .head, "/uploads/3", status: 204, responseFields: ["Upload-Offset": " 100 "])
        builder.exchange(1, 2, .patch, "/uploads/3", fields: ["Upload-Offset": "100"], body: 50, status: 204)
        builder.exchange(1, 3, .patch, "/uploads/3", fields: ["Upload-Offset": "150"], body: 50, status: 201)
        #expect(judge(builder).status == .passed)
        builder.exchange(1, 4, .patch, "/uploads/3", fields: ["Upload-Offset": "150"], body: 50, status: 201)
        builder.exchange(1, 5, .patch, "/uploads/3", status: 400)
        let again = judge(builder)
        #expect(again.status == .failed)
        #expect(
            again.evidence == [
                "conn 1 #4 PATCH /uploads/3 Upload-Offset: 150: sent 150, server reported 200 (conn 1 #3 PATCH)",
                "conn 1 #5 PATCH /uploads/3: sent no Upload-Offset, server reported 200 (conn 1 #4 PATCH)",
            ])
    }

    @Test func patchesBeforeAnyHeadOrToOtherResourcesAreNotJudged() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(1, 1, .patch, "/uploads/1", fields: ["Upload-Offset": "999"], body: 1, status: 204)
        builder.exchange(1, 2, .head, "/uploads/2", status: 204, responseFields: ["Upload-Offset": "10"])
        builder.exchange(1, 3, .patch, "/uploads/1", fields: ["Upload-Offset": "5"], body: 1, status: nil)
        let check = AppendOffsetCheck(builder.transcript)
        #expect(check.judged == 0)
        #expect(check.mismatches.isEmpty)
    }

    @Test(arguments: [
        ("/uploads/7", "/uploads/7"), ("/uploads/7?a=b", "/uploads/7"), ("https://h:1/uploads/7", "/uploads/7"),
        ("http://h", "/"), ("/uploads/7#part", "/uploads/7"), ("https://h/uploads/7?a#b", "/uploads/7"),
    ])
    func resourcesAreKeyedByPath(target: String, path: String) {
        #expect(AppendOffsetCheck.resource(target) == path)
    }

    /// The resource rule is `UploadRequest.path(of:)`, the one the proxy and the server use: a HEAD whose target
    /// carries a fragment reports the offset of the same resource as the PATCH without one.
    @Test func aHeadAndAPatchNamingTheResourceDifferentlyAreTheSameResource() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(1, 1, .head, "/uploads/9#x", status: 204, responseFields: ["Upload-Offset": "10"])
        builder.exchange(1, 2, .patch, "/uploads/9", fields: ["Upload-Offset": "0"], body: 5, status: 204)
        #expect(judge(builder).status == .failed)
    }
}
