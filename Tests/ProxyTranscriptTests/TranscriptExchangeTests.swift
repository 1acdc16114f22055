import HTTPWire
import ProxyTranscript
import Testing

struct TranscriptExchangeTests {
    @Test func mergesOverlappingAndAdjacentRanges() {
        #expect(TranscriptExchange.merge([]) == [])
        #expect(TranscriptExchange.merge([10..<20, 0..<10]) == [0..<20])
        #expect(TranscriptExchange.merge([0..<10, 11..<20]) == [0..<10, 11..<20])
        #expect(TranscriptExchange.merge([5..<15, 0..<10, 30..<40, 12..<13]) == [0..<15, 30..<40])
        #expect(TranscriptExchange.merge([0..<100, 10..<20]) == [0..<100])
        #expect(TranscriptExchange.merge([5..<5, 7..<9, 9..<9]) == [7..<9])
    }

    @Test func groupsEventsIntoExchanges() {
        var transcript = Transcript()
        let patch = RequestHead(method: .patch, target: "/u/1", fields: ["Upload-Offset": "100"])
        let head = RequestHead(method: .head, target: "/u/1")
        let interim = ResponseHead(status: 104, reason: "Upload Resumption Supported")
        let interim2 = ResponseHead(status: 100, reason: "Continue")
        let final = ResponseHead(status: 204, reason: "No Content")
        let kinds: [(Int, TranscriptEvent.Kind)] = [
            (1, .opened(client: "c", listener: "l")),
            (1, .requestHead(exchange: 1, patch)),
            (2, .requestHead(exchange: 1, head)),
            (1, .interimResponse(exchange: 1, interim)),
            (1, .requestBody(exchange: 1, offset: 0, length: 50, uploadOffset: 100)),
            (1, .requestBody(exchange: 1, offset: 50, length: 50, uploadOffset: 150)),
            (1, .interimResponse(exchange: 1, interim2)),
            (1, .requestBody(exchange: 1, offset: 100, length: 7, uploadOffset: nil)),
            (1, .finalResponse(exchange: 1, final)),
            (1, .responseBody(exchange: 1, offset: 0, length: 3)),
            (1, .responseBody(exchange: 1, offset: 3, length: 4)),
            (1, .requestHead(exchange: 2, head)),
            (1, .closed(side: .upstream, kind: .rst)),
        ]
        for (n, (connection, kind)) in kinds.enumerated() {
            transcript.append(TranscriptEvent(time: .milliseconds(n), connection: connection, kind: kind))
        }
        let exchanges = transcript.exchanges(connection: 1)
        #expect(exchanges.map(\.number) == [1, 2])
        var first = TranscriptExchange(connection: 1, number: 1)
        first.request = patch
        first.interims = [interim, interim2]
        first.response = final
        first.requestBodyBytes = 107
        first.responseBodyBytes = 7
        first.uploadCoverage = [100..<200]
        #expect(exchanges.first == first)
        var second = TranscriptExchange(connection: 1, number: 2)
        second.request = head
        #expect(exchanges.last == second)
        #expect(transcript.exchanges(connection: 2).map(\.request) == [head])
        #expect(transcript.exchanges(connection: 3).isEmpty)
    }

    /// Found by fuzzing (Tools/fuzz.sh transcript): lines read back from a file may hold counts whose sums pass
    /// 64 bits; the byte totals and the ends of the upload coverage saturate instead of trapping.
    @Test func countsReadFromLinesSaturateInTheTotals() throws {
        let max = Int64.max
        let bodyLine = { (event: String, counts: String) in
            #"{"t_us":1,"conn":1,"event":"\#(event)","exchange":1,"offset":0,\#(counts)}"#
        }
        let lines = [
            bodyLine("request_body", #""length":\#(max),"upload_offset":\#(max)"#),
            bodyLine("request_body", #""length":100,"upload_offset":\#(max - 7)"#),
            bodyLine("request_body_dropped", #""length":\#(max),"upload_offset":null"#),
            bodyLine("response_body", #""length":\#(max)"#),
        ]
        var transcript = Transcript()
        for line in lines + lines { transcript.append(try TranscriptEvent(jsonLine: line)) }
        let exchange = try #require(transcript.exchanges(connection: 1).first)
        #expect(exchange.requestBodyBytes == max && exchange.droppedRequestBodyBytes == max)
        #expect(exchange.responseBodyBytes == max)
        #expect(exchange.uploadCoverage == [(max - 7)..<max])
    }

    @Test func keepsAnExchangeWhoseHeadTheCapDropped() {
        var transcript = Transcript(cap: 2)
        let kinds: [TranscriptEvent.Kind] = [
            .requestHead(exchange: 1, RequestHead(method: .patch, target: "/u")),
            .requestBody(exchange: 1, offset: 0, length: 10, uploadOffset: 0),
            .requestBody(exchange: 1, offset: 20, length: 10, uploadOffset: 20),
        ]
        for kind in kinds { transcript.append(TranscriptEvent(time: .zero, connection: 1, kind: kind)) }
        let exchanges = transcript.exchanges(connection: 1)
        #expect(exchanges.count == 1)
        #expect(exchanges.first?.request == nil)
        #expect(exchanges.first?.requestBodyBytes == 20)
        #expect(exchanges.first?.uploadCoverage == [0..<10, 20..<30])
    }
}
