import FaultEngine
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

@Suite struct ConnectionFlowRegressionTests {
    static func drain(_ lane: inout Lane) -> (bytes: [UInt8], markers: [FlowItem]) {
        var bytes: [UInt8] = []
        var markers: [FlowItem] = []
        while let item = lane.next(at: .seconds(100)) {
            if case .bytes(let b) = item {
                bytes += b
                lane.consume(b.count)
            } else {
                markers.append(item)
                lane.pop()
            }
        }
        return (bytes, markers)
    }

    /// Found by fuzzing (Tools/fuzz.sh connection-flow): bytes that fail to parse between requests begin the next
    /// exchange. The proxy's 400 was recorded as exchange 0 on a fresh connection (a line `init(jsonLine:)`
    /// refuses) and as the answer to the exchange before it on a kept-alive one.
    @Test func aMalformedRequestBetweenExchangesIsTheNextExchange() throws {
        let budget = BudgetCell()
        var fresh = ConnectionFlowLifecycleTests.relaying(budget: budget)
        _ = fresh.handle(
            .received(Array("GET /\u{1} HTTP/1.1\r\n\r\n".utf8)[...], from: .client), at: .zero, budget: budget)
        let events = fresh.takeEvents()
        #expect(events.compactMap { if case .proxyAnswered(let exchange) = $0.kind { exchange } else { nil } } == [1])
        for event in events { #expect(try TranscriptEvent(jsonLine: event.jsonLine()) == event) }

        var kept = ConnectionFlowLifecycleTests.relaying(budget: budget)
        _ = kept.handle(
            .received(Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\n".utf8)[...], from: .client), at: .zero, budget: budget)
        _ = kept.handle(
            .received(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)[...], from: .upstream), at: .zero, budget: budget)
        _ = kept.handle(
            .received(Array("GET /\u{1} HTTP/1.1\r\n\r\n".utf8)[...], from: .client), at: .zero, budget: budget)
        let answered = kept.takeEvents().compactMap { event -> Int? in
            if case .proxyAnswered(let exchange) = event.kind { exchange } else { nil }
        }
        #expect(answered == [2])
    }

    /// A respond applied outside the byte stream (API fire, `after` trigger) once the final response head went
    /// out cannot answer any more: the connection closes after what was forwarded, nothing lands inside the body.
    @Test func respondDuringResponseBodyKeepsFraming() {
        var flow = ConnectionFlowLifecycleTests.relaying()
        _ = flow.handle(
            .received(Array("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[...], from: .client), at: .zero,
            budget: BudgetCell())
        _ = flow.handle(
            .received(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789".utf8)[...], from: .upstream),
            at: .milliseconds(1), budget: BudgetCell())
        let fire = FaultDecision(
            rule: "fire", connection: 1, action: .respond(FaultResponse(status: 503)), direction: .both,
            time: .milliseconds(2))
        _ = flow.handle(.message(.fire(fire)), at: .milliseconds(2), budget: BudgetCell())
        let out = Self.drain(&flow.toClient)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
        #expect(out.markers == [.close])
    }

    /// A stall fired at an upload offset holds the bytes from that offset on, not the bytes before it that arrived
    /// in the same read.
    @Test func stallAtOffsetForwardsBytesBeforeTheOffset() throws {
        let hold = try FaultRule.parse(
            #"{"name": "hold", "trigger": {"at-offset": 1000}, "action": "stall", "direction": "upstream"}"#)
        let budget = BudgetCell(rules: [hold], seed: 1)
        var flow = ConnectionFlowLifecycleTests.relaying(budget: budget)
        let head = "POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n"
        _ = flow.handle(
            .received((Array(head.utf8) + [UInt8](repeating: 1, count: 4000))[...], from: .client), at: .zero,
            budget: budget)
        var forwarded = 0
        while let item = flow.toUpstream.next(at: .seconds(1)) {
            guard case .bytes(let b) = item else { break }
            forwarded += b.count
            flow.toUpstream.consume(b.count)
        }
        #expect(forwarded == head.utf8.count + 1000)
    }

    /// `drop-response` acts only on a final head: fired inside a request body (a `window` arm made due there) it
    /// closes nothing, as before the fault families; `truncate-response` in the stream closes the client's side.
    @Test(arguments: [FaultAction.dropResponse, .truncateResponse(afterBytes: 0)])
    func onlyATruncationClosesTheClientsSideInTheStream(action: FaultAction) {
        var flow = ConnectionFlowLifecycleTests.relaying()
        let decision = FaultDecision(rule: "r", connection: 1, action: action, direction: .both, time: .zero)
        flow.applyInStream(decision, toClientLane: false, at: .zero)
        #expect(flow.toClient.isCut == (action != .dropResponse))
        #expect(!flow.toUpstream.isCut)
    }
}
