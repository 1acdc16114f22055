import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// The HTTP flow without sockets: bytes split every which way give the same forwarded bytes and faults.
@Suite struct ConnectionFlowTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    /// Feeds the chunks from the client at time zero through an engine with `rules`, carries out the upstream
    /// lane and ends the connection an hour later; returns the flow and the items of the upstream lane.
    static func run(
        _ chunks: [[UInt8]], rules: [FaultRule], seed: UInt64 = 1
    ) -> (flow: ConnectionFlow, upstream: [FlowItem]) {
        let engine = BudgetCell(rules: rules, seed: seed)
        var flow = ConnectionFlow(id: 1, mode: .http, seed: seed)
        for decision in flow.faults.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: engine)
            .decisions
        {
            flow.apply(decision, at: .zero)
        }
        for chunk in chunks {
            flow.received(chunk[...], from: .client, at: .zero, budget: engine)
        }
        var items: [FlowItem] = []
        while let item = flow.toUpstream.next(at: .seconds(3600)) {
            items.append(item)
            if case .bytes(let bytes) = item { flow.toUpstream.consume(bytes.count) } else { flow.toUpstream.pop() }
        }
        flow.finished(at: .seconds(3600), budget: engine)
        return (flow, items)
    }

    static func bytes(_ items: [FlowItem]) -> [UInt8] {
        items.flatMap { item -> [UInt8] in if case .bytes(let bytes) = item { Array(bytes) } else { [] } }
    }

    static let appendHead = Array(
        "PATCH /upload/abc HTTP/1.1\r\nHost: h\r\nUpload-Draft-Interop-Version: 6\r\nUpload-Offset: 3145728\r\nUpload-Complete: ?1\r\nUpload-Length: 8388608\r\nContent-Length: 5242880\r\n\r\n"
            .utf8)

    @Test func aPercentageFiresAtTheSameAbsoluteByteUnderEverySplitting() throws {
        let cut = try Self.rule(#"{"name": "cut", "trigger": {"at-offset": "40%"}, "action": "reset"}"#)
        // 40 % of 8 MiB is byte 3,355,443; this PATCH starts at 3 MiB, so 209,715 of its bytes go through.
        let body = [UInt8](repeating: 0x5a, count: 300_000)
        let message = Self.appendHead + body
        var generator = SeededGenerator(seed: 42)
        for round in 0..<40 {
            var chunks: [[UInt8]] = []
            var position = 0
            while position < message.count {
                let size = Int.random(in: 1...(round % 2 == 0 ? 9000 : 200), using: &generator)
                chunks.append(Array(message[position..<min(message.count, position + size)]))
                position += size
            }
            let (flow, items) = Self.run(chunks, rules: [cut])
            #expect(items.last == .reset)
            let forwarded = Self.bytes(items)
            let headLength = forwarded.count - 209_715
            #expect(Array(forwarded.prefix(headLength)).starts(with: Array("PATCH /upload/abc".utf8)))
            #expect(forwarded.count - headLength == 209_715)
            let fired = flow.events.compactMap { event -> FiredFault? in
                if case .faultFired(let fault) = event.kind { return fault }
                return nil
            }
            #expect(
                fired == [FiredFault(rule: "cut", action: "reset", direction: .both, offset: 3_355_443, decided: .zero)]
            )
        }
    }

    @Test func chunkedBodiesArriveWithTheSameContent() throws {
        let head = "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let wire = Array((head + "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n").utf8)
        for chunks in ByteSplits.randomSplittings(wire, count: 50, maxChunk: 7) {
            let (_, items) = Self.run(chunks, rules: [])
            var parser = HTTP1Parser(role: .server)
            var content: [UInt8] = []
            var ended = false
            for event in try parser.feed(Self.bytes(items)) {
                if case .body(let bytes) = event { content += bytes }
                if case .end = event { ended = true }
            }
            #expect(content == Array("hello, world".utf8))
            #expect(ended)
        }
    }

    @Test func respondAnswersAndSwallowsTheBody() throws {
        let busy = try Self.rule(
            #"{"name": "busy", "action": "respond", "status": 503, "headers": {"Retry-After": "1"}}"#)
        let wire = Array(
            "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbodyGET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        var (flow, upstream) = Self.run(ByteSplits.oneByteAtATime(wire), rules: [busy])
        #expect(Self.bytes(upstream).isEmpty)
        var answers: [UInt8] = []
        while let item = flow.toClient.next(at: .zero) {
            if case .bytes(let bytes) = item { answers += bytes }
            flow.toClient.pop()
        }
        let text = String(decoding: answers, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(text.components(separatedBy: "HTTP/1.1 503").count == 3)
        #expect(text.contains("Retry-After: 1\r\n"))
    }

    /// The text written to the client after the request `wire` got the upstream answer `answer`, and the flow.
    static func relay(_ wire: String, answer: String, origins: Set<String>) -> (client: String, flow: ConnectionFlow) {
        let engine = BudgetCell(rules: [], seed: 1)
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        flow.forwardedProto = "https"
        flow.upstreamOrigins = origins
        flow.received(Array(wire.utf8)[...], from: .client, at: .zero, budget: engine)
        flow.received(Array(answer.utf8)[...], from: .upstream, at: .zero, budget: engine)
        var written: [UInt8] = []
        while let item = flow.toClient.next(at: .zero) {
            if case .bytes(let bytes) = item { written += bytes }
            flow.toClient.pop()
        }
        return (String(decoding: written, as: UTF8.self), flow)
    }

    @Test func anAbsoluteLocationOnTheUpstreamPointsBackAtTheProxyAndTheTranscriptSaysSo() {
        let request = "POST /upload HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nContent-Length: 0\r\n\r\n"
        let answer =
            "HTTP/1.1 104 Upload Resumption Supported\r\nLocation: https://Up.Example/files/7?t=1\r\n\r\n"
            + "HTTP/1.1 201 Created\r\nLocation: https://elsewhere.example/files/7\r\nContent-Length: 0\r\n\r\n"
        let (client, flow) = Self.relay(
            request, answer: answer, origins: ["https://up.example", "https://up.example:443"])
        #expect(client.contains("Location: https://127.0.0.1:8443/files/7?t=1\r\n"))
        #expect(client.contains("Location: https://elsewhere.example/files/7\r\n"), "another origin stays")
        let rewrites = flow.events.compactMap { event -> String? in
            guard case .locationRewritten(_, let from, let to) = event.kind else { return nil }
            return "\(from) -> \(to)"
        }
        #expect(rewrites == ["https://Up.Example/files/7?t=1 -> https://127.0.0.1:8443/files/7?t=1"])
        // The transcript keeps the server's own head.
        let interim = flow.events.compactMap { event -> String? in
            guard case .interimResponse(_, let head) = event.kind else { return nil }
            return head.fields["Location"]
        }
        #expect(interim == ["https://Up.Example/files/7?t=1"])
        // Without origins nothing is rewritten.
        let (untouched, _) = Self.relay(request, answer: answer, origins: [])
        #expect(untouched.contains("Location: https://Up.Example/files/7?t=1\r\n"))
    }

    @Test func theProxysOwnAnswerIsMarkedAndARewrittenRequestIsRecordedAsForwarded() throws {
        let busy = try Self.rule(#"{"name": "busy", "match": {"method": "POST"}, "action": "respond", "status": 503}"#)
        let strip = try Self.rule(
            #"{"name": "strip", "match": {"method": "PATCH"}, "action": "rewrite-header", "direction": "upstream", "header": "Upload-Draft-Interop-Version", "value": null}"#
        )
        let wire =
            "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"
            + "PATCH /upload/7 HTTP/1.1\r\nHost: h\r\nUpload-Draft-Interop-Version: 6\r\nContent-Length: 0\r\n\r\n"
        let (flow, _) = Self.run([Array(wire.utf8)], rules: [busy, strip])
        let marks = flow.events.compactMap { event -> String? in
            switch event.kind {
            case .proxyAnswered(let exchange): "answered \(exchange)"
            case .requestForwarded(let exchange, let head):
                "forwarded \(exchange) \(head.fields["Upload-Draft-Interop-Version"] ?? "without the version")"
            default: nil
            }
        }
        #expect(marks == ["answered 1", "forwarded 2 without the version"])
    }

    @Test func theSameSeedGivesTheSameFaultTimeline() throws {
        let flaky = try Self.rule(#"{"name": "flaky", "action": "respond", "status": 500, "probability": 0.5}"#)
        var request = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        request = Array((0..<40).map { _ in request }.joined())
        func timeline(_ seed: UInt64) -> [Int] {
            let (flow, _) = Self.run([request], rules: [flaky], seed: seed)
            // The exchanges the fault answered.
            return flow.events.compactMap { event in
                if case .finalResponse(let exchange, _) = event.kind { return exchange }
                return nil
            }
        }
        #expect(timeline(5) == timeline(5))
        #expect(timeline(5) != timeline(6))
        #expect(timeline(5).count > 5)
    }

    @Test func aMalformedRequestGetsA400AndTheConnectionCloses() {
        var (flow, upstream) = Self.run([Array("BAD REQUEST LINE\r\n\r\n".utf8)], rules: [])
        #expect(Self.bytes(upstream).isEmpty)
        var items: [FlowItem] = []
        while let item = flow.toClient.next(at: .zero) {
            items.append(item)
            flow.toClient.pop()
        }
        #expect(String(decoding: Self.bytes(items), as: UTF8.self).hasPrefix("HTTP/1.1 400 Bad Request"))
        #expect(items.last == .close)
    }

    /// A transfer coding other than exactly chunked gets the same 501 the reference server gives, never forwarded.
    @Test func aCodingBeforeChunkedIsRefusedWith501() {
        var (flow, upstream) = Self.run(
            [Array("POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8)], rules: [])
        #expect(Self.bytes(upstream).isEmpty)
        var items: [FlowItem] = []
        while let item = flow.toClient.next(at: .zero) {
            items.append(item)
            flow.toClient.pop()
        }
        let text = String(decoding: Self.bytes(items), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 501 Not Implemented\r\n"), "\(text)")
        #expect(text.contains("transfer coding must be exactly chunked"))
    }

    @Test func consecutiveBodyReadsBecomeFewEventsThatCoverTheBody() {
        let head = Array("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 3145728\r\n\r\n".utf8)
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        let engine = BudgetCell(rules: [], seed: 1)
        _ = flow.faults.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: engine)
        flow.received(head[...], from: .client, at: .zero, budget: engine)
        var taken: [TranscriptEvent] = flow.takeEvents(at: .zero)
        for index in 0..<96 {
            let time = Duration.milliseconds(Int64(index))
            flow.received(ArraySlice(repeating: 1, count: 32 * 1024), from: .client, at: time, budget: engine)
            taken += flow.takeEvents(at: time)
        }
        // The last megabyte is still growing and younger than bodyEventAge: held back until asked for.
        #expect(taken.count == 3)
        taken += flow.takeEvents()
        let ranges = taken.compactMap { event -> (Int64, Int64, Int64?)? in
            if case .requestBody(_, let offset, let length, let upload) = event.kind { return (offset, length, upload) }
            return nil
        }
        #expect(ranges.map(\.0) == [0, 1 << 20, 2 << 20])
        #expect(ranges.map(\.1) == [1 << 20, 1 << 20, 1 << 20])
        #expect(ranges.map(\.2) == [0, 1 << 20, 2 << 20])
    }
}
