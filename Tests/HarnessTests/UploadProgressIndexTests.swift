import FaultEngine
import HTTPWire
import ProxyTranscript
import Scenario
import Testing

@testable import Harness

/// Progress-triggered events read the transcript as it grows, each event once.
struct UploadProgressIndexTests {
    static func head(_ connection: Int, _ exchange: Int, file: String, length: Int64) -> TranscriptEvent {
        let head = RequestHead(
            method: .post, target: "/upload", fields: ["X-Filename": file, "Upload-Length": "\(length)"])
        return TranscriptEvent(time: .zero, connection: connection, kind: .requestHead(exchange: exchange, head))
    }

    static func body(_ connection: Int, _ exchange: Int, at offset: Int64, _ length: Int64) -> TranscriptEvent {
        TranscriptEvent(
            time: .zero, connection: connection,
            kind: .requestBody(exchange: exchange, offset: offset, length: length, uploadOffset: offset))
    }

    static func half(of asset: String?) -> ScenarioEvent {
        ScenarioEvent(action: .killClient, trigger: .progress(.fraction(numerator: 50, denominator: 100), asset: asset))
    }

    @Test func anEventIsReachedOnceItsAssetCrossesThePositionAndNotBefore() {
        let index = UploadProgressIndex()
        var transcript = Transcript()
        transcript.append(Self.head(1, 1, file: "photo-1", length: 1000))
        transcript.append(Self.head(2, 1, file: "photo-2", length: 1000))
        transcript.append(Self.body(2, 1, at: 0, 900))
        transcript.append(Self.body(1, 1, at: 0, 400))
        #expect(!index.reached(Self.half(of: "photo-1"), in: transcript))
        #expect(index.reached(Self.half(of: "photo-2"), in: transcript))
        #expect(index.reached(Self.half(of: nil), in: transcript))
        // Read incrementally: only the new event is taken in, and it crosses the position.
        transcript.append(Self.body(1, 1, at: 400, 100))
        #expect(index.reached(Self.half(of: "photo-1"), in: transcript))
    }

    @Test func eventsDroppedByTheCapAreSkippedAndTheRestStillCount() {
        let index = UploadProgressIndex()
        var transcript = Transcript(cap: 2)
        transcript.append(Self.head(1, 1, file: "photo-1", length: 1000))
        #expect(!index.reached(Self.half(of: "photo-1"), in: transcript))
        for offset in stride(from: Int64(0), to: 600, by: 100) { transcript.append(Self.body(1, 1, at: offset, 100)) }
        #expect(transcript.droppedCount == 5)
        #expect(transcript.events(since: 0).count == 2 && transcript.events(since: 6).count == 1)
        #expect(transcript.events(since: 7).isEmpty && transcript.appendedCount == 7)
        #expect(index.reached(Self.half(of: "photo-1"), in: transcript))
    }

    /// The length is what `UploadRequestFacts` says: an append that does not complete the upload tells no length,
    /// so its `Content-Length` plus its offset is not taken for the upload's (the looser rule this replaced was).
    @Test func anIncompleteAppendTellsNoLength() {
        let index = UploadProgressIndex()
        var transcript = Transcript()
        let head = RequestHead(
            method: .patch, target: "/upload/1",
            fields: [
                "X-Filename": "photo", "Upload-Draft-Interop-Version": "8", "Upload-Offset": "400",
                "Upload-Complete": "?0", "Content-Length": "100",
            ])
        transcript.append(TranscriptEvent(time: .zero, connection: 1, kind: .requestHead(exchange: 1, head)))
        transcript.append(Self.body(1, 1, at: 400, 100))
        #expect(!index.reached(Self.half(of: "photo"), in: transcript))
        #expect(index.furthest(of: "photo", in: transcript).contains("its length was never told"))
    }

    /// A token request's empty POST states a length of 0 (its start plus `Content-Length`): it is no upload, and
    /// 50 % of nothing is not reached by it (an `expire-tokens` at 15 % played before any upload began). The hold
    /// placed at the event's position counts as reached when it fired.
    @Test func anEmptyRequestIsNoUploadAndAFiredHoldIsReached() {
        let index = UploadProgressIndex()
        var transcript = Transcript()
        let token = RequestHead(method: .post, target: "/_squall/token", fields: ["Content-Length": "0"])
        transcript.append(TranscriptEvent(time: .zero, connection: 1, kind: .requestHead(exchange: 1, token)))
        #expect(!index.reached(Self.half(of: nil), hold: "squall-hold-0", in: transcript))
        transcript.append(
            TranscriptEvent(
                time: .zero, connection: 2,
                kind: .faultFired(FiredFault(rule: "squall-hold-0", action: "stall", direction: .upstream, offset: 500))
            ))
        #expect(index.reached(Self.half(of: nil), hold: "squall-hold-0", in: transcript))
        #expect(!index.reached(Self.half(of: nil), hold: "squall-hold-1", in: transcript))
    }

    /// The upload a hold's firing was told of is what the proxy recorded the client got (`client_announcement`
    /// written), not any 104 it received: the control, a 104 received and stripped, tells of none.
    @Test(arguments: [true, false])
    func aFiringKnowsTheUploadOnlyWhenTheClientWasTold(written: Bool) {
        let index = UploadProgressIndex()
        var transcript = Transcript()
        transcript.append(Self.head(1, 1, file: "photo-1", length: 1000))
        let announcement = ResponseHead(status: 104, fields: ["Location": "/upload/7"])
        transcript.append(
            TranscriptEvent(time: .zero, connection: 1, kind: .interimResponse(exchange: 1, announcement)))
        let outcome: ClientAnnouncementOutcome = written ? .written : .stripped(rule: "no-104")
        let told = TranscriptEvent.Kind.clientAnnouncement(exchange: 1, location: "/upload/7", outcome: outcome)
        if written { transcript.append(TranscriptEvent(time: .zero, connection: 1, kind: told)) }
        transcript.append(Self.body(1, 1, at: 0, 500))
        let hold = FiredFault(rule: "squall-hold-0", action: "stall", direction: .upstream, offset: 500)
        transcript.append(TranscriptEvent(time: .milliseconds(1), connection: 1, kind: .faultFired(hold)))
        if !written { transcript.append(TranscriptEvent(time: .milliseconds(2), connection: 1, kind: told)) }
        #expect(index.firing(of: "squall-hold-0", in: transcript)?.announced == (written ? "/upload/7" : nil))
    }
}
