import FaultEngine
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// The upstream connected on demand and the client's timeouts (`ConnectionLimits`), on the flow's own clock: idle
/// clients cost no upstream connection, a head is whole by its deadline (the first from the opening) or answered
/// 408, an idle kept-alive connection closes.
@Suite struct ConnectionFlowTimeoutTests {
    static let limits = ConnectionLimits(headTimeout: .seconds(10), idleTimeout: .seconds(30))
    static let get = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
    static let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

    /// A flow opened at `opened` whose client leg came up at `ready`.
    static func accepted(_ mode: ConnectionFlow.Mode = .http, opened: Duration = .zero, ready: Duration = .zero)
        -> ConnectionFlow
    {
        var flow = ConnectionFlow(id: 1, mode: mode, seed: 1)
        flow.limits = limits
        #expect(
            flow.handle(.opened(client: "c", listener: "l", nth: 1), at: opened, budget: BudgetCell()) == [
                .acceptClient(deadline: opened + .seconds(10))
            ])
        #expect(flow.handle(.legReady(.client, tls: nil), at: ready, budget: BudgetCell()) == [.relay])
        return flow
    }

    static func feed(_ flow: inout ConnectionFlow, _ bytes: [UInt8], from side: FlowSide = .client, at time: Duration)
        -> [ConnectionAction]
    {
        flow.handle(.received(bytes[...], from: side), at: time, budget: BudgetCell())
    }

    /// Carries out both lanes at `time`, as the driver does before it reports `wrote`.
    static func write(_ flow: inout ConnectionFlow, at time: Duration) -> (text: String, markers: [FlowItem]) {
        _ = ConnectionFlowLifecycleTests.written(&flow.toUpstream)
        let out = ConnectionFlowLifecycleTests.written(&flow.toClient)
        _ = flow.handle(.wrote, at: time, budget: BudgetCell())
        return out
    }

    static func kinds(_ flow: inout ConnectionFlow) -> [TranscriptEvent.Kind] {
        flow.takeEvents().map(\.kind)
    }

    @Test func theUpstreamIsConnectedOnlyOnceTheFirstHeadIsWholeAndGetsItFirst() {
        var flow = Self.accepted()
        #expect(flow.handle(.tick, at: .seconds(5), budget: BudgetCell()) == [])
        #expect(Self.feed(&flow, Array(Self.get[..<10]), at: .seconds(6)) == [])
        #expect(Self.feed(&flow, Array(Self.get[10...]), at: .seconds(7)) == [.connectUpstream])
        #expect(flow.toUpstream.isEmpty)
        #expect(flow.handle(.legReady(.upstream, tls: nil), at: .seconds(8), budget: BudgetCell()) == [.relay])
        #expect(ConnectionFlowLifecycleTests.written(&flow.toUpstream).text.hasPrefix("GET /a HTTP/1.1\r\n"))
        #expect(flow.deadline == nil)
        // The request is recorded once the upstream is up, as when the upstream was connected at the opening.
        let kinds = Self.kinds(&flow)
        #expect(kinds.first == .opened(client: "c", listener: "l"))
        #expect(kinds.contains { if case .requestHead(1, _) = $0 { true } else { false } })
        #expect(flow.requests == 1)
    }

    @Test func inTCPModeTheFirstByteConnectsTheUpstream() {
        var flow = Self.accepted(.tcp)
        #expect(Self.feed(&flow, [0x16], at: .seconds(1)) == [.connectUpstream])
        #expect(flow.handle(.legReady(.upstream, tls: nil), at: .seconds(1), budget: BudgetCell()) == [.relay])
        #expect(Array(ConnectionFlowLifecycleTests.written(&flow.toUpstream).text.utf8) == [0x16])
        #expect(flow.deadline == nil)
    }

    /// `--upstream-at-accept` (and every Toxiproxy listener): in tcp mode the upstream is connected once the client
    /// leg is up, with no head deadline, so a server that speaks first is heard; http mode still waits for a head.
    @Test func upstreamAtAcceptConnectsInTCPModeWithoutABytesDeadline() {
        var flow = ConnectionFlow(id: 1, mode: .tcp, seed: 1)
        flow.limits = ConnectionLimits(headTimeout: .seconds(10), upstreamAtAccept: true)
        _ = flow.handle(.opened(client: "c", listener: "l", nth: 1), at: .zero, budget: BudgetCell())
        #expect(flow.handle(.legReady(.client, tls: nil), at: .zero, budget: BudgetCell()) == [.connectUpstream])
        #expect(flow.handle(.legReady(.upstream, tls: nil), at: .zero, budget: BudgetCell()) == [.relay])
        #expect(flow.deadline == nil)
        #expect(flow.handle(.tick, at: .seconds(60), budget: BudgetCell()) == [])

        var http = ConnectionFlow(id: 2, mode: .http, seed: 1)
        http.limits = flow.limits
        _ = http.handle(.opened(client: "c", listener: "l", nth: 1), at: .zero, budget: BudgetCell())
        #expect(http.handle(.legReady(.client, tls: nil), at: .zero, budget: BudgetCell()) == [.relay])
    }

    /// The deadline counts from the opening: a client leg that came up late, or a first byte that came late, do
    /// not move it.
    @Test func theFirstHeadsDeadlineCountsFromTheOpeningAndIsAnswered408() {
        var flow = Self.accepted(opened: .seconds(1), ready: .seconds(4))
        #expect(flow.deadline == .seconds(11))
        #expect(Self.feed(&flow, Array(Self.get[..<10]), at: .seconds(9)) == [])
        #expect(flow.deadline == .seconds(11))
        #expect(flow.handle(.tick, at: .milliseconds(10_999), budget: BudgetCell()) == [])
        #expect(flow.handle(.tick, at: .seconds(11), budget: BudgetCell()) == [])
        let out = Self.write(&flow, at: .seconds(11))
        #expect(out.text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(out.text.contains("Connection: close\r\n"))
        #expect(out.text.hasSuffix("within 10s (--head-timeout)\n"))
        #expect(out.markers == [.close])
        #expect(
            flow.handle(.reachedCut(.close), at: .seconds(11), budget: BudgetCell()).last == .finishWrites)
        // No upstream was ever asked for; the answer is in the transcript as the proxy's.
        let kinds = Self.kinds(&flow)
        #expect(kinds.contains(.proxyAnswered(exchange: 1)))
        #expect(!kinds.contains { if case .requestHead = $0 { true } else { false } })
    }

    @Test func aSilentTCPClientIsClosedAtTheDeadline() {
        var flow = Self.accepted(.tcp)
        #expect(
            flow.handle(.tick, at: .seconds(10), budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .fin)), .capture(CaptureMark(.upstream, .proxy, .fin)),
                .finishWrites,
            ])
    }

    /// A later head on a kept-alive connection has the head timeout from its first byte, once the exchange before
    /// it is over; then the connection is idle until the idle timeout.
    @Test func aLaterHeadHasItsDeadlineFromItsFirstByte() {
        var flow = Self.accepted()
        _ = Self.feed(&flow, Self.get, at: .seconds(1))
        _ = flow.handle(.legReady(.upstream, tls: nil), at: .seconds(1), budget: BudgetCell())
        _ = Self.write(&flow, at: .seconds(1))
        #expect(flow.deadline == nil)
        _ = Self.feed(&flow, Self.ok, from: .upstream, at: .seconds(2))
        #expect(flow.deadline == nil)
        #expect(Self.write(&flow, at: .seconds(2)).text.hasSuffix("ok"))
        #expect(flow.deadline == .seconds(32))
        _ = Self.feed(&flow, Array(Self.get[..<5]), at: .seconds(20))
        #expect(flow.deadline == .seconds(30))
        #expect(flow.handle(.tick, at: .seconds(30), budget: BudgetCell()) == [])
        #expect(Self.write(&flow, at: .seconds(30)).text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(Self.kinds(&flow).contains(.proxyAnswered(exchange: 2)))
    }

    @Test func anIdleKeptAliveConnectionClosesAfterTheIdleTimeout() {
        var flow = Self.accepted()
        _ = Self.feed(&flow, Self.get, at: .seconds(1))
        _ = flow.handle(.legReady(.upstream, tls: nil), at: .seconds(1), budget: BudgetCell())
        _ = Self.write(&flow, at: .seconds(1))
        _ = Self.feed(&flow, Self.ok, from: .upstream, at: .seconds(2))
        _ = Self.write(&flow, at: .seconds(3))
        #expect(flow.deadline == .seconds(33))
        #expect(flow.handle(.tick, at: .seconds(32), budget: BudgetCell()) == [])
        #expect(
            flow.handle(.tick, at: .seconds(33), budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .proxy, .fin)), .capture(CaptureMark(.upstream, .proxy, .fin)),
                .finishWrites,
            ])
    }

    /// Waiting for the server's answer, or writing it, is not idle: no timeout runs.
    @Test func aConnectionWaitingForItsResponseIsNotIdle() {
        var flow = Self.accepted()
        _ = Self.feed(&flow, Self.get, at: .seconds(1))
        _ = flow.handle(.legReady(.upstream, tls: nil), at: .seconds(1), budget: BudgetCell())
        _ = Self.write(&flow, at: .seconds(1))
        #expect(flow.deadline == nil)
        #expect(flow.handle(.tick, at: .seconds(600), budget: BudgetCell()) == [])
        _ = Self.feed(&flow, Self.ok, from: .upstream, at: .seconds(601))
        _ = flow.handle(.wrote, at: .seconds(601), budget: BudgetCell())
        #expect(flow.deadline == nil)
    }

    @Test func aClientThatLeavesBeforeARequestClosesWithoutAnUpstream() {
        var flow = Self.accepted()
        _ = Self.feed(&flow, Array(Self.get[..<4]), at: .seconds(1))
        #expect(
            flow.handle(.ended(.client), at: .seconds(2), budget: BudgetCell()) == [
                .capture(CaptureMark(.client, .peer, .fin)), .capture(CaptureMark(.client, .proxy, .fin)), .close,
            ])
        #expect(flow.handle(.endSent, at: .seconds(2), budget: BudgetCell()) == [.release])
        _ = flow.handle(.released, at: .seconds(2), budget: BudgetCell())
        #expect(ConnectionFlowLifecycleTests.closed(flow.takeEvents()) == [.closed(side: .client, kind: .fin)])
    }

    /// Faults keep their meaning while the flow waits for a request: a delayed trigger still fires on its tick, and
    /// a refusal at the opening never lets the client leg start.
    @Test func faultsActWhileTheFlowWaitsForARequest() throws {
        let later = try FaultRule.parse(#"{"name": "later", "trigger": {"after": "2s"}, "action": "close"}"#)
        let budget = BudgetCell(rules: [later], seed: 1)
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        _ = flow.handle(.opened(client: "c", listener: "l", nth: 1), at: .zero, budget: budget)
        _ = flow.handle(.legReady(.client, tls: nil), at: .zero, budget: budget)
        #expect(flow.faultsDue == .seconds(2))
        #expect(flow.handle(.tick, at: .seconds(2), budget: budget).last == .finishWrites)

        let refuse = try FaultRule.parse(#"{"name": "down", "action": "refuse"}"#)
        var refused = ConnectionFlow(id: 2, mode: .http, seed: 1)
        #expect(
            refused.handle(.opened(client: "c", listener: "l", nth: 1), at: .zero, budget: BudgetCell(rules: [refuse]))
                .last == .abort(waitForAcknowledgement: false))
    }
}
