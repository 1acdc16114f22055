import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// What the flow records of faults: percentages resolved from lengths learned on earlier requests, rules that
/// cannot fire reported once, bytes cut off recorded apart from bytes forwarded, and faults stamped when their
/// action reaches the wire.
@Suite struct ConnectionFlowFaultRecordTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    /// Carries out every item of `lane` due at `now`.
    static func drain(_ lane: inout Lane, at now: Duration) -> (bytes: Int, markers: [FlowItem]) {
        var bytes = 0
        var markers: [FlowItem] = []
        while let item = lane.next(at: now) {
            if case .bytes(let chunk) = item {
                bytes += chunk.count
                lane.consume(chunk.count)
            } else {
                markers.append(item)
                lane.pop()
            }
        }
        return (bytes, markers)
    }

    static func bodies(_ events: [TranscriptEvent]) -> (forwarded: [Range<Int64>], dropped: [Range<Int64>]) {
        var forwarded: [Range<Int64>] = []
        var dropped: [Range<Int64>] = []
        for event in events {
            switch event.kind {
            case .requestBody(_, _, let length, let upload?): forwarded.append(upload..<upload + length)
            case .requestBodyDropped(_, _, let length, let upload?): dropped.append(upload..<upload + length)
            default: continue
            }
        }
        return (TranscriptExchange.merge(forwarded), TranscriptExchange.merge(dropped))
    }

    static let patchHead = Array(
        "PATCH /upload/7 HTTP/1.1\r\nHost: h\r\nUpload-Draft-Interop-Version: 6\r\nUpload-Offset: 4000000\r\nUpload-Complete: ?0\r\nContent-Type: application/partial-upload\r\nContent-Length: 4000000\r\n\r\n"
            .utf8)

    /// Connection 1 creates `/upload/7` (interop 6, `Upload-Length: 10000000`, the 104 announcing it) and
    /// sends its first 4 MB.
    static func create(_ engine: BudgetCell) {
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        _ = flow.faults.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: engine)
        let head =
            "POST /upload HTTP/1.1\r\nHost: h\r\nUpload-Draft-Interop-Version: 6\r\nUpload-Complete: ?0\r\nUpload-Length: 10000000\r\nContent-Length: 4000000\r\n\r\n"
        flow.received(Array(head.utf8)[...], from: .client, at: .zero, budget: engine)
        let announce = "HTTP/1.1 104 Upload Resumption Supported\r\nLocation: http://h/upload/7\r\n\r\n"
        flow.received(Array(announce.utf8)[...], from: .upstream, at: .zero, budget: engine)
        flow.received(ArraySlice(repeating: 1, count: 4_000_000), from: .client, at: .zero, budget: engine)
        _ = flow.faults.outcome(.connectionClosed(connection: 1, time: .zero), budget: engine)
    }

    /// Connection 2's PATCH of 4 MB at 4 MB, not the upload's last, in reads of 256 KiB.
    static func append(_ engine: BudgetCell) -> ConnectionFlow {
        var flow = ConnectionFlow(id: 2, mode: .http, seed: 1)
        _ = flow.faults.outcome(.connectionOpened(connection: 2, nth: 2, time: .zero), budget: engine)
        flow.received(patchHead[...], from: .client, at: .zero, budget: engine)
        var sent = 0
        while sent < 4_000_000 {
            let count = min(256 * 1024, 4_000_000 - sent)
            flow.received(ArraySlice(repeating: 2, count: count), from: .client, at: .milliseconds(1), budget: engine)
            sent += count
        }
        return flow
    }

    @Test func aPercentageOnANonFinalPatchCutsAtTheByteOfTheLengthTheCreationAnnounced() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "PATCH"}, "trigger": {"at-offset": "70%"}, "action": "reset"}"#)
        let engine = BudgetCell(rules: [cut], seed: 1)
        Self.create(engine)
        var flow = Self.append(engine)
        let out = Self.drain(&flow.toUpstream, at: .seconds(1))
        #expect(out.markers == [.reset])
        #expect(out.bytes == Self.patchHead.count + 3_000_000)
        flow.finished(at: .seconds(2), budget: engine)
        let events = flow.takeEvents()
        let fired = events.compactMap { event -> (Duration, FiredFault)? in
            if case .faultFired(let fault) = event.kind { return (event.time, fault) }
            return nil
        }
        #expect(fired.map(\.1.offset) == [7_000_000])
        // Stamped when the cut reached the wire (the connection's end), decided when the body crossed 70 %.
        #expect(fired.map(\.0) == [.seconds(2)])
        #expect(fired.map(\.1.decided) == [.milliseconds(1)])
        // What was forwarded, and what the cut dropped (the rest of its read and the reads after it), apart.
        let bodies = Self.bodies(events)
        #expect(bodies.forwarded == [4_000_000..<7_000_000])
        #expect(bodies.dropped == [7_000_000..<8_000_000])
    }

    @Test func anAbsoluteOffsetFiresWithoutALength() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "PATCH"}, "trigger": {"at-offset": 7000000}, "action": "reset"}"#)
        let engine = BudgetCell(rules: [cut], seed: 1)
        var flow = Self.append(engine)
        #expect(Self.drain(&flow.toUpstream, at: .seconds(1)).markers == [.reset])
        #expect(engine.budget.neverFired.isEmpty)
    }

    @Test func withoutTheLengthTheRuleIsReportedOnceForTheRequest() throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "PATCH"}, "trigger": {"at-offset": "70%"}, "action": "reset"}"#)
        let engine = BudgetCell(rules: [cut], seed: 1)
        var flow = Self.append(engine)
        let out = Self.drain(&flow.toUpstream, at: .seconds(1))
        #expect(out.markers.isEmpty)
        #expect(out.bytes == Self.patchHead.count + 4_000_000)
        let unresolved = flow.takeEvents().compactMap { event -> TranscriptEvent? in
            if case .faultUnresolved = event.kind { return event }
            return nil
        }
        let reason = "70% of an upload whose length the proxy never learned (PATCH /upload/7)"
        #expect(unresolved.map(\.kind) == [.faultUnresolved(rule: "cut", exchange: 1, reason: reason)])
        #expect(unresolved.map(\.connection) == [2])
        #expect(engine.budget.neverFiredReasons == ["cut": reason])
    }

    @Test func anEffectAtAnOffsetIsStampedWhenTheBytesBeforeItWereWritten() throws {
        let hold = try Self.rule(
            #"{"name": "hold", "trigger": {"at-offset": 1000}, "action": "stall", "duration": "5s", "direction": "upstream"}"#
        )
        let engine = BudgetCell(rules: [hold], seed: 1)
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        _ = flow.faults.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: engine)
        let head = "POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n"
        flow.received(
            (Array(head.utf8) + [UInt8](repeating: 1, count: 4000))[...], from: .client, at: .milliseconds(3),
            budget: engine)
        flow.wrote(at: .milliseconds(3))
        #expect(!flow.takeEvents().contains { if case .faultFired = $0.kind { true } else { false } })
        // The driver writes the head and the 1000 bytes before the offset 4 ms later.
        #expect(Self.drain(&flow.toUpstream, at: .milliseconds(7)).bytes == head.utf8.count + 1000)
        flow.wrote(at: .milliseconds(7))
        let fired = flow.takeEvents().compactMap { event -> (Duration, FiredFault)? in
            if case .faultFired(let fault) = event.kind { return (event.time, fault) }
            return nil
        }
        #expect(fired.map(\.0) == [.milliseconds(7)])
        #expect(fired.map(\.1.decided) == [.milliseconds(3)])
    }

    @Test func aRespondIsStampedWhenItsAnswerWasWrittenAndTheBodyItSwallowedIsDropped() throws {
        let busy = try Self.rule(#"{"name": "busy", "action": "respond", "status": 503}"#)
        let engine = BudgetCell(rules: [busy], seed: 1)
        var flow = ConnectionFlow(id: 1, mode: .http, seed: 1)
        _ = flow.faults.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: engine)
        let request = "POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"
        flow.received(Array(request.utf8)[...], from: .client, at: .milliseconds(1), budget: engine)
        _ = Self.drain(&flow.toClient, at: .milliseconds(2))
        flow.wrote(at: .milliseconds(2))
        let events = flow.takeEvents()
        #expect(
            events.compactMap { event -> Duration? in
                if case .faultFired = event.kind { return event.time }
                return nil
            } == [.milliseconds(2)])
        #expect(Self.bodies(events).forwarded.isEmpty)
        #expect(Self.bodies(events).dropped == [0..<10])
    }
}
