import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// A fault at an upload offset of a creation waits until the client has the server's 104 announcing the upload
/// (`Announcement`), and the evidence says so: issue 26. Driven without sockets: the client's and the server's
/// bytes go in, the lanes are carried out as the driver would, and `.wrote`, `.tick` and `.reachedCut` come back.
@Suite struct ConnectionFlowAnnouncementTests {
    static let length = 100_000
    static let body = [UInt8](repeating: 0x61, count: length)

    /// An interop `version` creation of `length` bytes (`Upload-Complete: ?1`), or a PATCH from 0 when `append`.
    static func head(version: Int = 8, append: Bool = false) -> [UInt8] {
        let line = append ? "PATCH /upload/7 HTTP/1.1" : "POST /upload HTTP/1.1"
        var fields = "Host: h\r\nUpload-Draft-Interop-Version: \(version)\r\nUpload-Complete: ?1\r\n"
        if append { fields += "Upload-Offset: 0\r\nContent-Type: application/partial-upload\r\n" }
        return Array("\(line)\r\n\(fields)Content-Length: \(length)\r\n\r\n".utf8)
    }

    static let announcement = Array(
        "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 8\r\nLocation: /upload/7\r\n\r\n"
            .utf8)

    static func rule(_ json: String) throws -> FaultRule { try FaultRule.parse(json) }

    static func cut(_ trigger: String = #"{"at-offset": "50%"}"#, action: String = "reset") throws -> FaultRule {
        try rule(#"{"name": "cut", "match": {"method": "POST"}, "trigger": \#(trigger), "action": "\#(action)"}"#)
    }

    /// A relaying flow with `rules`, fed the creation's head and its whole body at `now` (in `pieces`).
    static func flow(
        _ rules: [FaultRule], head: [UInt8] = Self.head(), pieces: Int = 1, interop: Set<Int>? = nil
    ) -> (ConnectionFlow, BudgetCell) {
        let budget = BudgetCell(rules: rules, seed: 1)
        var flow = ConnectionFlowLifecycleTests.relaying(budget: budget)
        flow.upstreamInterop = interop
        _ = flow.handle(.received(head[...], from: .client), at: .milliseconds(1), budget: budget)
        let size = (body.count + pieces - 1) / pieces
        for start in stride(from: 0, to: body.count, by: size) {
            let piece = body[start..<min(body.count, start + size)]
            _ = flow.handle(.received(piece, from: .client), at: .milliseconds(1), budget: budget)
        }
        return (flow, budget)
    }

    /// Carries out `lane` with the proxy's `FlowDriver`, only that lane's side writable (the other blocks), as one
    /// write round; returns the bytes written, the cut it stopped at (if any), and the actions the flow asked for.
    @discardableResult
    static func carryOut(
        _ flow: inout ConnectionFlow, _ lane: WritableKeyPath<ConnectionFlow, Lane>, at now: Duration,
        budget: BudgetCell
    ) -> (bytes: [UInt8], marker: FlowItem?, actions: [ConnectionAction]) {
        let side: FlowSide = lane == \ConnectionFlow.toUpstream ? .upstream : .client
        var legs = MemoryLegs(now: now)
        legs.writable = [side]
        var driver = FlowDriver(flow)
        driver.writeLanes(limit: .max, budget: budget, legs: &legs)
        flow = driver.flow
        // The events the driver recorded stay the flow's, for the test to take.
        flow.events.insert(contentsOf: legs.takeRecorded(), at: 0)
        var actions: [ConnectionAction] = legs.marks.map { .capture($0) }
        while let action = driver.nextAction() { actions.append(action) }
        let head = flow[keyPath: lane].headItem
        let marker = head == .reset || head == .close ? head : nil
        return (legs.written[side] ?? [], marker, actions)
    }

    /// A creation 1000 bytes in, its 104 queued for the client, reset at 2 ms by a decision from outside the byte
    /// stream (a network switch's): the RST waits for the 104 (`deferredCut`).
    static func resetFromOutside() -> (ConnectionFlow, BudgetCell) {
        let budget = BudgetCell(rules: [], seed: 1)
        var flow = ConnectionFlowLifecycleTests.relaying(budget: budget)
        _ = flow.handle(.received(head()[...], from: .client), at: .milliseconds(1), budget: budget)
        _ = flow.handle(.received(body[..<1000], from: .client), at: .milliseconds(1), budget: budget)
        _ = flow.handle(.received(announcement[...], from: .upstream), at: .milliseconds(1), budget: budget)
        let reset = FaultDecision(
            rule: "squall-switch-network", connection: 1, action: .reset, direction: .both, time: .milliseconds(2))
        #expect(flow.handle(.message(.fire(reset)), at: .milliseconds(2), budget: budget).isEmpty)
        return (flow, budget)
    }

    static func kinds(_ flow: inout ConnectionFlow) -> [TranscriptEvent.Kind] {
        flow.takeEvents().map(\.kind).filter {
            switch $0 {
            case .requestBody, .requestWritten, .requestHead, .interimResponse, .finalResponse, .responseBody, .opened:
                false
            default: true
            }
        }
    }

    static func forwardedBody(_ bytes: [UInt8], after head: [UInt8] = Self.head()) -> Int {
        bytes.count - head.count
    }

    @Test func aCutInACreationWaitsForTheClientToHaveTheAnnouncementThenFires() throws {
        var (flow, budget) = Self.flow([try Self.cut()])
        // The bytes before 50 % went to the server; the rest waits, and the client is not read meanwhile.
        let up = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(Self.forwardedBody(up.bytes) == 50_000)
        #expect(up.marker == nil)
        #expect(!flow.reads(.client))
        #expect(flow.reads(.upstream))
        #expect(
            Self.kinds(&flow) == [.announcementAwaited(exchange: 1, rule: "cut", uploadOffset: 50_000)])
        // The server's 104 arrives; once it is written to the client the cut fires at its byte.
        _ = flow.handle(.received(Self.announcement[...], from: .upstream), at: .milliseconds(3), budget: budget)
        let down = Self.carryOut(&flow, \.toClient, at: .milliseconds(4), budget: budget)
        #expect(down.bytes == Self.announcement)
        let cut = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(4), budget: budget)
        #expect(cut.bytes.isEmpty && cut.marker == .reset)
        #expect(flow.handle(.tick, at: .milliseconds(4), budget: budget).contains(.abort(waitForAcknowledgement: true)))
        let kinds = Self.kinds(&flow)
        // The client was told (once), then the wait ended.
        #expect(
            kinds.prefix(2) == [
                .clientAnnouncement(exchange: 1, location: "/upload/7", outcome: .written),
                .announcementWaitEnded(exchange: 1, outcome: .announced),
            ])
        #expect(kinds.contains { if case .requestBodyDropped(1, 50_000, 50_000, 50_000) = $0 { true } else { false } })
    }

    @Test func withoutAnAnnouncementTheCutFiresAtItsBoundAndSaysSo() throws {
        var (flow, budget) = Self.flow([try Self.cut(#"{"at-offset": "50%", "announcement-wait": "300ms"}"#)])
        Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(flow.deadline == .milliseconds(301))
        #expect(flow.handle(.tick, at: .milliseconds(200), budget: budget).isEmpty)
        #expect(!flow.reads(.client), "still waiting before the bound")
        _ = flow.handle(.tick, at: .milliseconds(301), budget: budget)
        let cut = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(302), budget: budget)
        #expect(cut.marker == .reset)
        let kinds = Self.kinds(&flow)
        #expect(kinds.contains(.announcementWaitEnded(exchange: 1, outcome: .timedOut)))
    }

    @Test func theFinalResponseEndsTheWait() throws {
        var (flow, budget) = Self.flow([try Self.cut()])
        Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        let refusal = Array("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n".utf8)
        _ = flow.handle(.received(refusal[...], from: .upstream), at: .milliseconds(3), budget: budget)
        #expect(Self.kinds(&flow).contains(.announcementWaitEnded(exchange: 1, outcome: .answered)))
        #expect(Self.carryOut(&flow, \.toUpstream, at: .milliseconds(3), budget: budget).marker == .reset)
    }

    /// Client bytes that arrive during the wait (here the body in many reads) go on after the fault, in order: the
    /// same bytes are forwarded and dropped however the body was read.
    @Test(arguments: [1, 3, 7, 40])
    func bytesReadDuringTheWaitFollowTheFault(pieces: Int) throws {
        var (flow, budget) = Self.flow([try Self.cut(action: "stall")], pieces: pieces)
        let before = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(Self.forwardedBody(before.bytes) == 50_000)
        _ = flow.handle(.received(Self.announcement[...], from: .upstream), at: .milliseconds(3), budget: budget)
        Self.carryOut(&flow, \.toClient, at: .milliseconds(4), budget: budget)
        // A stall forever holds the rest: nothing more leaves, and the rest of the body is queued behind it.
        let after = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(5), budget: budget)
        #expect(after.bytes.isEmpty)
        #expect(flow.toUpstream.queuedBytes == 50_000)
    }

    /// A chunked body read whole with its end in one read: the end waits behind the held fault too, so the last
    /// chunk goes after the body's rest, never before it.
    @Test func theBodysEndReadWithItWaitsBehindTheFault() throws {
        let head = Array(
            ("POST /upload HTTP/1.1\r\nHost: h\r\nUpload-Draft-Interop-Version: 8\r\nUpload-Complete: ?1\r\n"
                + "Upload-Length: 1000\r\nTransfer-Encoding: chunked\r\n\r\n").utf8)
        let body = Array("3e8\r\n".utf8) + [UInt8](repeating: 0x62, count: 1000) + Array("\r\n0\r\n\r\n".utf8)
        let pause = try Self.rule(
            #"{"name": "pause", "match": {"method": "POST"}, "trigger": {"at-offset": "50%"}, "action": "stall", "duration": "1ms"}"#
        )
        let budget = BudgetCell(rules: [pause], seed: 1)
        var flow = ConnectionFlowLifecycleTests.relaying(budget: budget)
        _ = flow.handle(.received((head + body)[...], from: .client), at: .milliseconds(1), budget: budget)
        let before = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(!String(decoding: before.bytes, as: UTF8.self).hasSuffix("0\r\n\r\n"), "the end waited")
        _ = flow.handle(.received(Self.announcement[...], from: .upstream), at: .milliseconds(2), budget: budget)
        Self.carryOut(&flow, \.toClient, at: .milliseconds(3), budget: budget)
        let after = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(10), budget: budget)
        let forwarded = String(decoding: before.bytes + after.bytes, as: UTF8.self)
        #expect(forwarded.hasSuffix("\r\n0\r\n\r\n"))
        #expect(forwarded.filter { $0 == "b" }.count == 1000)
    }

    @Test func aCreationAtAVersionTheServerDoesNotServeDoesNotWait() throws {
        var (flow, budget) = Self.flow([try Self.cut()], interop: [6, 7])
        let up = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(Self.forwardedBody(up.bytes) == 50_000)
        #expect(up.marker == .reset)
        #expect(!Self.kinds(&flow).contains { if case .announcementAwaited = $0 { true } else { false } })
    }

    @Test func anAppendAndAShapingEffectNeverWait() throws {
        let append = Self.head(append: true)
        let rule = try Self.rule(
            #"{"name": "cut", "match": {"method": "PATCH"}, "trigger": {"at-offset": "50%"}, "action": "reset"}"#)
        var (patch, budget) = Self.flow([rule], head: append)
        #expect(Self.carryOut(&patch, \.toUpstream, at: .milliseconds(2), budget: budget).marker == .reset)
        var (slow, slowBudget) = Self.flow([
            try Self.rule(
                #"{"name": "slow", "match": {"method": "POST"}, "trigger": {"at-offset": "50%"}, "action": "latency", "latency": "1ms"}"#
            )
        ])
        #expect(slow.reads(.client))
        let shaped = Self.carryOut(&slow, \.toUpstream, at: .seconds(1), budget: slowBudget)
        #expect(Self.forwardedBody(shaped.bytes) == Self.length)
    }

    /// `"announcement": "before"`: the cut fires at its byte, and the request's 104 never reaches the client.
    @Test func aCutBeforeTheAnnouncementWithholdsThe104() throws {
        var (flow, budget) = Self.flow([try Self.cut(#"{"at-offset": "50%", "announcement": "before"}"#)])
        _ = flow.handle(.received(Self.announcement[...], from: .upstream), at: .milliseconds(1), budget: budget)
        #expect(Self.carryOut(&flow, \.toClient, at: .milliseconds(2), budget: budget).bytes.isEmpty)
        let up = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(Self.forwardedBody(up.bytes) == 50_000 && up.marker == .reset)
        let kinds = Self.kinds(&flow)
        #expect(kinds.contains(.announcementWithheld(exchange: 1, rule: "cut")))
        #expect(!kinds.contains { if case .announcementAwaited = $0 { true } else { false } })
    }

    /// The negative control of the wait: the same cut before the announcement fires at once, with no 104 yet.
    @Test func theSameCutAskedBeforeTheAnnouncementFiresAtOnce() throws {
        var (flow, budget) = Self.flow([try Self.cut(#"{"at-offset": "50%", "announcement": "before"}"#)])
        #expect(Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget).marker == .reset)
    }

    /// An RST reached in the upstream lane waits for the interim heads queued for the client (and one poll for
    /// those the server already sent): the 104 the proxy received before the cut reaches the client first.
    @Test func aResetWritesThe104sItHasReceivedFirst() throws {
        var (flow, budget) = Self.flow([try Self.cut(#"{"at-offset": "50%", "announcement": "wait"}"#)])
        _ = flow.handle(.received(Self.announcement[...], from: .upstream), at: .milliseconds(1), budget: budget)
        // The 104 is queued (not yet written); the wait ends only once it is, so the cut is held until then.
        let reachedFirst = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(reachedFirst.marker == nil)
        let down = Self.carryOut(&flow, \.toClient, at: .milliseconds(2), budget: budget)
        #expect(down.bytes == Self.announcement)
        let reached = Self.carryOut(&flow, \.toUpstream, at: .milliseconds(2), budget: budget)
        #expect(reached.marker == .reset)
        #expect(reached.actions.isEmpty, "the cut waits one poll for interim heads the server already sent")
        #expect(flow.deadline == .milliseconds(2))
        let progress = Array(
            "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 8\r\nUpload-Offset: 40000\r\n\r\n"
                .utf8)
        _ = flow.handle(.received(progress[...], from: .upstream), at: .milliseconds(2), budget: budget)
        #expect(flow.handle(.tick, at: .milliseconds(2), budget: budget).isEmpty, "a progress 104 still to write")
        let late = Self.carryOut(&flow, \.toClient, at: .milliseconds(3), budget: budget)
        #expect(late.bytes == progress)
        #expect(late.actions.contains(.abort(waitForAcknowledgement: true)))
    }

    /// A reset fired from outside the byte stream (a network switch, the control API) holds the server's lane at once
    /// and is carried out once the 104 queued for the client is written.
    @Test func aResetFiredFromOutsideWritesThe104sItHasReceivedFirst() throws {
        var (flow, budget) = Self.resetFromOutside()
        // The server's lane is held: the request's bytes go no further; the client's lane carries the 104.
        #expect(flow.toUpstream.next(at: .milliseconds(3)) == nil)
        _ = flow.handle(.received(Self.body[1000..<2000], from: .client), at: .milliseconds(2), budget: budget)
        #expect(flow.toUpstream.next(at: .milliseconds(3)) == nil)
        let down = Self.carryOut(&flow, \.toClient, at: .milliseconds(3), budget: budget)
        #expect(down.bytes == Self.announcement)
        #expect(flow.handle(.tick, at: .milliseconds(3), budget: budget).contains(.abort(waitForAcknowledgement: true)))
    }

    @Test func theAnnouncementKeysReadAndWriteBack() throws {
        for trigger in [
            #"{"at-offset": "50%"}"#, #"{"at-offset": "50%", "announcement": "before"}"#,
            #"{"at-offset": 4096, "announcement-wait": "5s"}"#,
        ] {
            let rule = try Self.cut(trigger)
            let encoded = String(decoding: try JSONEncoder().encode(rule), as: UTF8.self)
            #expect(try FaultRule.parse(encoded) == rule, "\(encoded)")
        }
        #expect(throws: FaultError.self) { try Self.cut(#"{"at-offset": "50%", "announcement": "later"}"#) }
        #expect(throws: FaultError.self) {
            try Self.cut(#"{"at-offset": "50%", "announcement": "before", "announcement-wait": "1s"}"#)
        }
        #expect(throws: FaultError.self) { try Self.cut(#"{"after": "1s", "announcement": "before"}"#) }
    }
}
