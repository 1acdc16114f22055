import FaultEngine
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// Whether the client was told of a creation's upload is one transcript event, written once by the flow
/// (`clientAnnouncement`): when the 104 with `Location` is written to the client, or at the connection's end saying
/// why it never was. The oracle and the harness read it instead of inferring it.
@Suite struct ClientAnnouncementTests {
    typealias Base = ConnectionFlowAnnouncementTests

    /// The `clientAnnouncement` events of `flow` once it is reset from outside at 5 ms and its end is sent, after
    /// its client lane was written (`written`) or not.
    static func tellings(_ flow: inout ConnectionFlow, budget: BudgetCell, written: Bool) -> [ClientAnnouncementOutcome]
    {
        if written { Base.carryOut(&flow, \.toClient, at: .milliseconds(4), budget: budget) }
        let reset = FaultDecision(
            rule: "squall-switch-network", connection: 1, action: .reset, direction: .both, time: .milliseconds(5))
        _ = flow.handle(.message(.fire(reset)), at: .milliseconds(5), budget: budget)
        _ = flow.handle(.tick, at: .milliseconds(5) + ConnectionFlow.interimFlushLimit, budget: budget)
        _ = flow.handle(.endSent, at: .milliseconds(60), budget: budget)
        return flow.takeEvents().compactMap { event in
            guard case .clientAnnouncement(1, "/upload/7", let outcome) = event.kind else { return nil }
            return outcome
        }
    }

    /// A creation with its 104 received from the server, under `rules`.
    static func announced(_ rules: [FaultRule]) -> (ConnectionFlow, BudgetCell) {
        var (flow, budget) = Base.flow(rules, pieces: 100)
        _ = flow.handle(.received(Base.announcement[...], from: .upstream), at: .milliseconds(3), budget: budget)
        return (flow, budget)
    }

    @Test(arguments: [true, false])
    func a104WrittenToTheClientIsToldOnceAndOneNeverWrittenIsUnwritten(written: Bool) {
        var (flow, budget) = Self.announced([])
        #expect(Self.tellings(&flow, budget: budget, written: written) == [written ? .written : .unwritten])
    }

    @Test func a104StrippedIsToldAsStrippedByItsRule() throws {
        let strip = try FaultRule.parse(#"{"name": "no-104", "action": "strip-interim"}"#)
        var (flow, budget) = Self.announced([strip])
        #expect(Self.tellings(&flow, budget: budget, written: true) == [.stripped(rule: "no-104")])
    }

    @Test func a104WithheldForACutBeforeTheAnnouncementIsToldAsWithheld() throws {
        var (flow, budget) = Self.announced([try Base.cut(#"{"at-offset": "99%", "announcement": "before"}"#)])
        #expect(Self.tellings(&flow, budget: budget, written: true) == [.withheld(rule: "cut")])
    }

    /// A 104 the client's lane drops (a closing stall downstream: Toxiproxy's `timeout`) is never written, whatever
    /// the lane's position says afterwards; the control, the same without the stall, is written.
    @Test(arguments: [true, false])
    func a104DroppedByAClosingStallIsUnwritten(stalled: Bool) throws {
        let stall = try FaultRule.parse(
            #"{"name": "timeout", "action": "stall", "duration": "1s", "then": "close", "direction": "downstream"}"#)
        var (flow, budget) = Self.announced(stalled ? [stall] : [])
        #expect(Self.tellings(&flow, budget: budget, written: true) == [stalled ? .unwritten : .written])
    }

    /// The control: a 104 without `Location` (a progress report) tells the client of no upload.
    @Test func a104WithoutLocationTellsNothing() {
        var (flow, budget) = Base.flow([], pieces: 100)
        let progress = Array(
            "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 8\r\nUpload-Offset: 40000\r\n\r\n"
                .utf8)
        _ = flow.handle(.received(progress[...], from: .upstream), at: .milliseconds(3), budget: budget)
        #expect(Self.tellings(&flow, budget: budget, written: true).isEmpty)
    }

    @Test func theEventReadsAndWritesBack() throws {
        for outcome in [ClientAnnouncementOutcome.written, .unwritten, .withheld(rule: "a"), .stripped(rule: "b")] {
            let event = TranscriptEvent(
                time: .milliseconds(3), connection: 2,
                kind: .clientAnnouncement(exchange: 1, location: "/upload/7", outcome: outcome))
            #expect(try TranscriptEvent(jsonLine: event.jsonLine()) == event)
        }
        let ruleless =
            #"{"t_us":1,"conn":1,"event":"client_announcement","exchange":1,"location":"/u","outcome":"withheld","rule":null}"#
        #expect(throws: TranscriptParseError.self) { try TranscriptEvent(jsonLine: ruleless) }
    }
}
