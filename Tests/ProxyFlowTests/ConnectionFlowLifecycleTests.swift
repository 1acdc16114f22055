import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// The flow's inputs and the actions they give: set-up, the gateway for an unreachable upstream, ends and
/// failures with their capture marks, ticks and inbox messages.
@Suite struct ConnectionFlowLifecycleTests {
    static func none(_ event: FaultEvent) -> FaultOutcome { FaultOutcome() }

    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    /// A flow through `opened` and its client leg, with `budget` asked at the opening: it waits for a request.
    static func accepted(_ mode: ConnectionFlow.Mode = .http, id: Int = 1, budget: BudgetCell = BudgetCell())
        -> ConnectionFlow
    {
        var flow = ConnectionFlow(id: id, mode: mode, seed: 1)
        flow.upstreamName = "http://127.0.0.1:9"
        #expect(
            flow.handle(.opened(client: "c", listener: "l", nth: id), at: .zero, budget: budget) == [
                .acceptClient(deadline: nil)
            ])
        #expect(flow.handle(.legReady(.client, tls: nil), at: .zero, budget: budget) == [.relay])
        return flow
    }

    /// A flow relaying with both legs, its upstream connected before any byte came (a shortcut for the tests of what
    /// follows; `ConnectionFlowTimeoutTests` has the upstream connected on demand).
    static func relaying(_ mode: ConnectionFlow.Mode = .http, id: Int = 1, budget: BudgetCell = BudgetCell())
        -> ConnectionFlow
    {
        var flow = accepted(mode, id: id, budget: budget)
        #expect(flow.handle(.legReady(.upstream, tls: nil), at: .zero, budget: budget) == [.relay])
        return flow
    }

    /// A flow whose client sent `request`, for which the upstream is being connected.
    static func connecting(_ request: String, mode: ConnectionFlow.Mode = .http) -> ConnectionFlow {
        var flow = accepted(mode)
        let bytes = Array(request.utf8)
        #expect(
            flow.handle(.received(bytes[...], from: .client), at: .zero, budget: BudgetCell()) == [.connectUpstream])
        return flow
    }

    static func written(_ lane: inout Lane) -> (text: String, markers: [FlowItem]) {
        var bytes: [UInt8] = []
        var markers: [FlowItem] = []
        while let item = lane.next(at: .seconds(100)) {
            if case .bytes(let chunk) = item {
                bytes += chunk
                lane.consume(chunk.count)
            } else {
                markers.append(item)
                lane.pop()
            }
        }
        return (String(decoding: bytes, as: UTF8.self), markers)
    }

    static func closed(_ events: [TranscriptEvent]) -> [TranscriptEvent.Kind] {
        events.map(\.kind).filter { if case .closed = $0 { true } else { false } }
    }

    /// The lingering end of a gateway: FINs, a drain, an RST mark for the client still open, the upstream's close.
    static func lingeringEnd(_ flow: inout ConnectionFlow) {
        #expect(
            flow.handle(.reachedCut(.close), at: .milliseconds(2), budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .fin)), .capture(CaptureMark(.upstream, .proxy, .fin)),
                .finishWrites,
            ])
        #expect(flow.handle(.endSent, at: .milliseconds(2), budget: BudgetCell()) == [.drain])
        #expect(
            flow.handle(.drained, at: .milliseconds(3), budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .rst)), .close,
            ])
        #expect(flow.handle(.endSent, at: .milliseconds(3), budget: BudgetCell()) == [.release])
        #expect(flow.handle(.released, at: .milliseconds(3), budget: BudgetCell()) == [])
    }

    @Test func anUnreachableUpstreamAnswersTheRequestWithA502() {
        var flow = Self.connecting("GET /files/a HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(flow.handle(.upstreamUnreachable(reason: "refused"), at: .zero, budget: BudgetCell()) == [.relay])
        let out = Self.written(&flow.toClient)
        let body = "squall proxy: upstream http://127.0.0.1:9 unreachable: refused\n"
        #expect(out.text.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(out.text.hasSuffix("\r\n\r\n" + body))
        #expect(out.text.contains("Content-Length: \(body.utf8.count)\r\nConnection: close\r\n"))
        #expect(out.markers == [.close])
        #expect(flow.deadline == nil)
        Self.lingeringEnd(&flow)
        let events = flow.takeEvents()
        #expect(
            events.contains { if case .requestHead(1, let head) = $0.kind { head.target == "/files/a" } else { false } }
        )
        #expect(events.contains { if case .finalResponse(1, let head) = $0.kind { head.status == 502 } else { false } })
        #expect(Self.closed(events) == [.closed(side: .upstream, kind: .rst)])
    }

    @Test func aGatewayAnswersAHeadWithoutABody() {
        var flow = Self.connecting("HEAD /files/a HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = flow.handle(.upstreamUnreachable(reason: "refused"), at: .zero, budget: BudgetCell())
        let out = Self.written(&flow.toClient)
        #expect(out.text.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(out.text.hasSuffix("Connection: close\r\n\r\n"))
        #expect(out.markers == [.close])
    }

    /// Bytes that can never make a request head connect the upstream as a head does (it is the upstream's, or the
    /// proxy's 400, to answer them); when the upstream is unreachable the client still gets the 502.
    @Test func malformedFirstBytesConnectTheUpstreamAndAGatewayAnswersThem() {
        var flow = Self.connecting("NOT HTTP AT ALL\r\n\r\n")
        _ = flow.handle(.upstreamUnreachable(reason: "refused"), at: .zero, budget: BudgetCell())
        let out = Self.written(&flow.toClient)
        #expect(out.text.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(out.markers == [.close])
        #expect(!flow.takeEvents().contains { if case .requestHead = $0.kind { true } else { false } })
    }

    @Test func anUnreachableUpstreamInTCPModeResetsTheClient() {
        var flow = Self.connecting("x", mode: .tcp)
        #expect(
            flow.handle(.upstreamUnreachable(reason: "refused"), at: .zero, budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .rst)), .abort(waitForAcknowledgement: false),
            ])
        #expect(flow.handle(.endSent, at: .zero, budget: BudgetCell()) == [.release])
        _ = flow.handle(.released, at: .zero, budget: BudgetCell())
        #expect(Self.closed(flow.takeEvents()) == [.closed(side: .upstream, kind: .rst)])
    }

    @Test func aClientTLSFailureResetsTheClient() {
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        _ = flow.handle(.opened(client: "c", listener: "l", nth: 1), at: .zero, budget: BudgetCell())
        #expect(
            flow.handle(.tlsFailed(.client, reason: "alert"), at: .zero, budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .rst)), .abort(waitForAcknowledgement: false),
            ])
        _ = flow.handle(.endSent, at: .zero, budget: BudgetCell())
        _ = flow.handle(.released, at: .zero, budget: BudgetCell())
        let kinds = flow.takeEvents().map(\.kind)
        #expect(kinds.contains(.tlsFailed(leg: .client, reason: "alert")))
        #expect(kinds.last == .closed(side: .proxy, kind: .rst))
    }

    @Test func aPeerGoneWithoutCloseNotifyIsMarkedAsItsFINAndTheProxysRSTs() {
        var flow = Self.relaying()
        #expect(
            flow.handle(.failed(.client, abruptEOF: true), at: .zero, budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .peer, .fin)), .capture(CaptureMark(.client, .proxy, .rst)),
                .capture(CaptureMark(.upstream, .proxy, .rst)), .abort(waitForAcknowledgement: false),
            ])
        _ = flow.handle(.endSent, at: .zero, budget: BudgetCell())
        _ = flow.handle(.released, at: .zero, budget: BudgetCell())
        #expect(Self.closed(flow.takeEvents()) == [.closed(side: .client, kind: .rst)])
    }

    @Test func anRSTFromTheUpstreamIsMarkedAsItsOwn() {
        var flow = Self.relaying()
        #expect(
            flow.handle(.failed(.upstream, abruptEOF: false), at: .zero, budget: BudgetCell()) == [
                .capture(CaptureMark(.upstream, .peer, .rst)), .capture(CaptureMark(.client, .proxy, .rst)),
                .abort(waitForAcknowledgement: false),
            ])
    }

    @Test func bothPeersFinishingClosesAfterTheLanesEmptied() {
        var flow = Self.relaying(.tcp)
        #expect(
            flow.handle(.ended(.upstream), at: .zero, budget: BudgetCell()) == [
                .capture(CaptureMark(.upstream, .peer, .fin))
            ])
        _ = flow.handle(.ended(.client), at: .zero, budget: BudgetCell())
        // The ends are passed on first: FINs on both legs.
        #expect(flow.handle(.wrote, at: .zero, budget: BudgetCell()) == [])
        #expect(Self.written(&flow.toClient).markers == [.endStream])
        #expect(Self.written(&flow.toUpstream).markers == [.endStream])
        #expect(
            flow.handle(.shutDown(.client), at: .zero, budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .fin))
            ])
        #expect(flow.handle(.wrote, at: .zero, budget: BudgetCell()) == [.close])
        _ = flow.handle(.endSent, at: .zero, budget: BudgetCell())
        _ = flow.handle(.released, at: .zero, budget: BudgetCell())
        #expect(Self.closed(flow.takeEvents()) == [.closed(side: .upstream, kind: .fin)])
    }

    /// A delayed trigger fires on its own connection's tick; the other connection's arm still waits for its own.
    @Test func aConnectionsTickFiresItsOwnDelayedTriggerOnly() throws {
        let later = try Self.rule(#"{"name": "later", "trigger": {"after": "1s"}, "action": "reset"}"#)
        let engine = BudgetCell(rules: [later], seed: 7)
        var first = Self.relaying(id: 1, budget: engine)
        var second = Self.relaying(id: 2, budget: engine)
        #expect(first.handle(.tick, at: .milliseconds(999), budget: engine) == [])
        #expect(
            first.handle(.tick, at: .seconds(1), budget: engine) == [
                .capture(CaptureMark(.client, .proxy, .rst)), .capture(CaptureMark(.upstream, .proxy, .rst)),
                .abort(waitForAcknowledgement: true),
            ])
        #expect(first.faults.nextDue == nil)
        #expect(second.faults.nextDue == .seconds(1))
        #expect(
            second.handle(.tick, at: .seconds(2), budget: engine).last
                == .abort(waitForAcknowledgement: true))
    }

    /// A fire and a rule removal reach a live connection as inbox messages: a stall holds the bytes, and the rule's
    /// removal releases them.
    @Test func inboxMessagesStartAndEndEffects() {
        var flow = Self.relaying(.tcp)
        let hold = FaultDecision(
            rule: "hold", connection: 1, action: .stall(duration: nil, thenClose: false), direction: .both, time: .zero)
        #expect(flow.handle(.message(.fire(hold)), at: .zero, budget: BudgetCell()) == [])
        _ = flow.handle(.received(Array("abc".utf8)[...], from: .client), at: .zero, budget: BudgetCell())
        #expect(flow.toUpstream.next(at: .seconds(5)) == nil)
        let removal = FaultRuleChange(set: FaultRuleSet(rules: [], version: 1), time: .seconds(5), restart: false)
        _ = flow.handle(.message(.rulesChanged(removal)), at: .seconds(5), budget: BudgetCell())
        #expect(Self.written(&flow.toUpstream).text == "abc")
        let cut = FaultDecision(rule: "cut", connection: 1, action: .reset, direction: .both, time: .seconds(6))
        #expect(
            flow.handle(.message(.fire(cut)), at: .seconds(6), budget: BudgetCell()).last
                == .abort(waitForAcknowledgement: true))
    }

    /// The same seed and the same events give the same draws, whichever connection meets them; another seed differs.
    @Test func drawsAcrossConnectionsAreDeterministic() throws {
        let coin = try Self.rule(#"{"name": "coin", "probability": 0.5, "action": "reset"}"#)
        func fired(seed: UInt64) -> [Int] {
            let engine = BudgetCell(rules: [coin], seed: seed)
            return (1...24).filter { id in
                var flow = ConnectionFlow(id: id, mode: .tcp, seed: 1)
                let actions = flow.handle(.opened(client: "c", listener: "l", nth: id), at: .zero, budget: engine)
                return actions.last == .abort(waitForAcknowledgement: false)
            }
        }
        let firstRun = fired(seed: 11)
        #expect(!firstRun.isEmpty && firstRun.count < 24)
        #expect(fired(seed: 11) == firstRun)
        #expect(fired(seed: 12) != firstRun)
    }

    /// Body chunks take the shared budget (its lock) only where an arm of the connection fires in them.
    @Test func bodyChunksAskTheBudgetOnlyWhereAnArmFires() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"path": "/cut"}, "trigger": {"at-offset": 100}, "action": "reset"}"#)
        let budget = BudgetCell(rules: [cut], seed: 1)
        var bodyAsks = 0
        var flow = Self.relaying(budget: budget)
        let body = [UInt8](repeating: 1, count: 50)
        for path in ["/other", "/cut"] {
            let head = Array("POST \(path) HTTP/1.1\r\nHost: h\r\nContent-Length: 200\r\n\r\n".utf8)
            _ = flow.handle(.received(head[...], from: .client), at: .zero, budget: budget)
            let before = budget.asks
            for _ in 0..<4 { _ = flow.handle(.received(body[...], from: .client), at: .zero, budget: budget) }
            bodyAsks += budget.asks - before
            _ = flow.handle(
                .received(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)[...], from: .upstream), at: .zero,
                budget: budget)
        }
        // None for /other; for /cut only the second chunk, where its arm fired (the rest is dropped).
        #expect(bodyAsks == 1)
        #expect(Self.written(&flow.toUpstream).markers == [.reset])
    }
}
