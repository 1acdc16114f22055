import HTTPWire
import ProxyTranscript
import Scenario
import Testing

@testable import ScenarioOracle

/// `UploadTimelines` from a synthetic transcript: a creation cut at 400, a HEAD, an append from 400; the token
/// request and the OPTIONS belong to no upload.
struct UploadTimelinesTests {
    private func resumedUpload() -> Transcript {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(1, 1, .options, "/upload", status: 204)
        builder.exchange(1, 2, .post, "/_squall/token?principal=squall", fields: ["Content-Length": "0"], status: 200)
        builder.add(
            2,
            .requestHead(
                exchange: 1,
                RequestHead(
                    method: .post, target: "/upload",
                    fields: ["X-Filename": "video", "Upload-Length": "1000", "Upload-Draft-Interop-Version": "6"])))
        builder.add(
            2,
            .interimResponse(
                exchange: 1,
                ResponseHead(status: 104, fields: ["Location": "https://127.0.0.1:9/uploads/7", "Upload-Offset": "0"])))
        builder.add(2, .requestBody(exchange: 1, offset: 0, length: 250, uploadOffset: 0))
        builder.add(2, .requestBody(exchange: 1, offset: 250, length: 150, uploadOffset: 250))
        builder.fault(2, rule: "cut", action: "reset", offset: 400)
        builder.add(2, .closed(side: .client, kind: .rst))
        builder.exchange(
            3, 1, .head, "/uploads/7", fields: ["Upload-Draft-Interop-Version": "6"], status: 204,
            responseFields: ["Upload-Offset": "400", "Upload-Length": "1000"])
        builder.exchange(
            3, 2, .patch, "/uploads/7",
            fields: ["Upload-Offset": "400", "Upload-Complete": "?1", "Upload-Draft-Interop-Version": "6"], body: 600,
            uploadOffset: 400, status: 201, responseFields: ["Upload-Offset": "1000"])
        return builder.transcript
    }

    @Test func anUploadCutAndResumedIsOneTimelineWithItsAcknowledgementsAndResumePoint() throws {
        let timelines = UploadTimelines.build(resumedUpload())
        try #require(timelines.count == 1, "\(timelines.map(\.name))")
        let video = timelines[0]
        #expect(video.name == "video")
        #expect(video.length == 1000)
        #expect(video.resources == ["/uploads/7"])
        #expect(video.requests.map(\.label) == ["POST (no response)", "HEAD 204", "PATCH 201"])
        #expect(video.requests[0].sent.map(\.offset) == [250, 400])
        #expect(video.requests[0].endMicroseconds > video.requests[0].startMicroseconds)
        #expect(video.acknowledged.map(\.offset) == [0, 400, 1000])
        #expect(video.acknowledged.map(\.label) == ["104", "HEAD 204", "PATCH 201"])
        #expect(video.resumes.map(\.offset) == [400])
        #expect(video.connections == [2, 3])
    }

    /// Negative control: a second creation for the same asset (a new resource) is drawn as starting over at 0, and a
    /// proxy's own answer acknowledges nothing.
    @Test func aSecondCreationStartsOverAndTheProxysAnswerAcknowledgesNothing() {
        var builder = OracleFixtures.TranscriptBuilder()
        for (connection, resource) in [(1, "/uploads/1"), (2, "/uploads/2")] {
            builder.add(
                connection,
                .requestHead(
                    exchange: 1, RequestHead(method: .post, target: "/upload", fields: ["X-Filename": "photo"])))
            builder.add(
                connection,
                .interimResponse(exchange: 1, ResponseHead(status: 104, fields: ["Location": resource])))
        }
        builder.add(3, .requestHead(exchange: 1, RequestHead(method: .head, target: "/uploads/2", fields: [:])))
        builder.add(3, .proxyAnswered(exchange: 1))
        builder.add(3, .finalResponse(exchange: 1, ResponseHead(status: 200, fields: ["Upload-Offset": "99"])))
        let timelines = UploadTimelines.build(builder.transcript)
        #expect(timelines.map(\.name) == ["photo"])
        #expect(timelines.first?.resumes.map(\.label) == ["started over at 0"])
        #expect(timelines.first?.acknowledged.isEmpty == true)
        #expect(timelines.first?.requests.last?.label == "HEAD 200 (proxy)")
    }

    @Test func sentPointsAreThinnedKeepingTheLast() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.add(1, .requestHead(exchange: 1, RequestHead(method: .post, target: "/upload", fields: [:])))
        for index in 0..<500 {
            builder.add(1, .requestBody(exchange: 1, offset: Int64(index), length: 1, uploadOffset: Int64(index)))
        }
        let sent = UploadTimelines.build(builder.transcript).first?.requests.first?.sent ?? []
        #expect(sent.count == UploadTimelines.sentPoints)
        #expect(sent.last?.offset == 500)
        #expect(sent.first?.offset == 1)
    }
}
