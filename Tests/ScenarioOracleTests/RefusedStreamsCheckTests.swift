import HTTP2Wire
import HTTPWire
import ProxyTranscript
import Scenario
import Testing

@testable import ScenarioOracle

/// `refused-streams-retried` from synthetic transcripts: an append on an HTTP/2 stream refused by a `GOAWAY` and sent
/// again on a new connection passes; one never sent again, one sent again without an answer, and a run where nothing
/// was refused fail (negative controls).
struct RefusedStreamsCheckTests {
    /// Two streams of connection 1's client: conn 2 carries an append that finishes, conn 3 the append at 512 that
    /// the `GOAWAY` refuses; then, when `sentAgain`, the same append on conn 5 (of a new connection), answered
    /// (`answered`).
    static func refusedAppend(sentAgain: Bool, answered: Bool = true) -> Transcript {
        var builder = OracleFixtures.TranscriptBuilder()
        let fields: HTTPFields = ["Upload-Offset": "512", "Content-Length": "256"]
        builder.exchange(2, 1, .patch, "/uploads/9", fields: ["Upload-Offset": "0"], body: 256, status: 204)
        builder.add(3, .requestHead(exchange: 1, RequestHead(method: .patch, target: "/uploads/7", fields: fields)))
        builder.fault(3, rule: "drain", action: "goaway", offset: nil)
        builder.add(1, .goaway(lastStream: 3, code: HTTP2ErrorCode.noError.rawValue))
        builder.add(3, .streamReset(side: .proxy, code: HTTP2ErrorCode.refusedStream.rawValue))
        if sentAgain {
            builder.exchange(
                5, 1, .patch, "/uploads/7", fields: fields, body: 256, status: answered ? 204 : nil)
        }
        return builder.transcript
    }

    private func judge(_ transcript: Transcript, wanted: Bool = true) -> Verdict {
        let scenario = OracleFixtures.scenario([.refusedStreamsRetried(wanted)], count: 1)
        return ScenarioOracle.judge(scenario, OracleFixtures.observation(transcript: transcript))[0]
    }

    @Test func aRefusedAppendSentAgainAndAnsweredPasses() {
        let verdict = judge(Self.refusedAppend(sentAgain: true))
        #expect(verdict.status == .passed, "\(verdict)")
        #expect(verdict.observed == "true (1 refused requests)")
        #expect(judge(Self.refusedAppend(sentAgain: true), wanted: false).status == .failed)
    }

    @Test func aRefusedAppendNeverSentAgainFails() {
        let verdict = judge(Self.refusedAppend(sentAgain: false))
        #expect(verdict.status == .failed)
        #expect(verdict.evidence.first?.hasSuffix("was refused (REFUSED_STREAM) and never sent again") == true)
    }

    @Test func aRefusedAppendSentAgainWithoutAnAnswerFails() {
        let verdict = judge(Self.refusedAppend(sentAgain: true, answered: false))
        #expect(verdict.status == .failed)
        #expect(verdict.evidence.first?.contains("which got no final response") == true, "\(verdict)")
    }

    /// The front records a refusal as it happens, the stream's request as its relay writes it: the reset's line may
    /// come first, with a later time than the request's. It is matched to the request all the same.
    @Test func aRefusalRecordedBeforeItsRequestsLineIsMatchedToIt() {
        let fields: HTTPFields = ["Upload-Offset": "512", "Content-Length": "256"]
        var transcript = Transcript()
        let events: [(Int, Int, TranscriptEvent.Kind)] = [
            (3, 20, .streamReset(side: .proxy, code: HTTP2ErrorCode.refusedStream.rawValue)),
            (3, 10, .requestHead(exchange: 1, RequestHead(method: .patch, target: "/uploads/7", fields: fields))),
            (5, 30, .requestHead(exchange: 1, RequestHead(method: .patch, target: "/uploads/7", fields: fields))),
            (5, 40, .finalResponse(exchange: 1, ResponseHead(status: 204))),
        ]
        for (connection, milliseconds, kind) in events {
            transcript.append(TranscriptEvent(time: .milliseconds(milliseconds), connection: connection, kind: kind))
        }
        let verdict = judge(transcript)
        #expect(verdict.status == .passed, "\(verdict)")
        #expect(verdict.observed == "true (1 refused requests)")
    }

    /// A run where the GOAWAY refused nothing (or none came) has nothing to show: the verdict fails, saying so.
    @Test func nothingRefusedFails() {
        var builder = OracleFixtures.TranscriptBuilder()
        builder.exchange(2, 1, .patch, "/uploads/9", fields: ["Upload-Offset": "0"], body: 256, status: 204)
        let verdict = judge(builder.transcript)
        #expect(verdict.status == .failed)
        #expect(verdict.evidence.first?.hasPrefix("no HTTP/2 stream was refused") == true, "\(verdict)")
    }

    /// The transcript lines the proxy writes for a refusal read back as they were written.
    @Test func theStreamResetAndGoawayLinesReadBack() throws {
        for kind: TranscriptEvent.Kind in [
            .streamReset(side: .proxy, code: HTTP2ErrorCode.refusedStream.rawValue),
            .streamReset(side: .client, code: HTTP2ErrorCode.cancel.rawValue),
            .goaway(lastStream: 13, code: HTTP2ErrorCode.noError.rawValue),
            .http2Stream(connection: 1, stream: 13),
        ] {
            let event = TranscriptEvent(time: .milliseconds(5), connection: 3, kind: kind)
            #expect(try TranscriptEvent(jsonLine: event.jsonLine()) == event, "\(event.jsonLine())")
        }
        let line = TranscriptEvent(time: .zero, connection: 3, kind: .streamReset(side: .proxy, code: 7)).jsonLine()
        #expect(line.contains(#""event":"stream_reset","side":"proxy","code":"REFUSED_STREAM""#), "\(line)")
    }
}
