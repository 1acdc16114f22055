import ChaosProxy
import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing

/// Each fault kind over real loopback sockets, through the proxy to the reference server.
@Suite struct ProxyFaultTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    static func fired(_ transcript: Transcript) -> [FiredFault] {
        transcript.events.compactMap { event in
            if case .faultFired(let fault) = event.kind { return fault }
            return nil
        }
    }

    static func closes(_ transcript: Transcript) -> [(CloseSide, CloseKind)] {
        transcript.events.compactMap { event in
            if case .closed(let side, let kind) = event.kind { return (side, kind) }
            return nil
        }
    }

    /// Waits until the proxy has recorded `count` closed connections (the transcript is the readiness signal).
    static func waitForCloses(_ proxy: ChaosProxy, count: Int = 1) {
        _ = proxy.waitForTranscript(timeout: .seconds(20)) { closes($0).count >= count }
    }

    /// The server's offset for an upload, asked with HEAD straight to the server (interop 6).
    static func offset(of id: String, on fixture: ProxyFixture) throws -> Int64? {
        let stream = PlainStream(
            socket: try TCPConnector.connect(
                to: try SocketAddress(parsing: String(fixture.server.url.dropFirst("http://".count)))))
        defer { stream.close() }
        let head = RequestHead(
            method: .head, target: "/upload/\(id)", fields: ["Host": "127.0.0.1", "Upload-Draft-Interop-Version": "6"])
        let outcome = WireExchange.send(head, over: stream)
        return outcome.final?.fields["Upload-Offset"].flatMap { Int64($0) }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14])
    func resetAtAPercentageCutsAtThatExactByte(seed: UInt64) throws {
        let cut = try Self.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset"}"#)
        let fixture = try ProxyFixture(rules: [cut])
        let body = ProxyForwardingTests.body(1 << 20, seed: seed)
        let stream = try fixture.connect()
        let outcome = WireExchange.send(
            ProxyForwardingTests.creation(length: body.count), body: body,
            segments: ProxyForwardingTests.segments(seed: seed, total: body.count), over: stream)
        stream.abort()
        #expect(outcome.final == nil)
        Self.waitForCloses(fixture.proxy)
        #expect(fixture.server.waitUntilIdle(timeout: .seconds(20)))
        let record = try #require(fixture.server.uploads().first)
        #expect(!record.complete)
        let offset = try Self.offset(of: record.id, on: fixture)
        #expect(offset == 419_430)
        let fired = Self.fired(fixture.proxy.transcript)
        #expect(fired.map(\.rule) == ["cut"])
        #expect(fired.first?.offset == 419_430)
        #expect(Self.closes(fixture.proxy.transcript).first.map { $0.0 == .proxy && $0.1 == .rst } == true)
    }

    @Test func closeEndsTheConnectionWithAFin() throws {
        let close = try Self.rule(#"{"name": "fin", "match": {"method": "POST"}, "action": "close"}"#)
        let fixture = try ProxyFixture(rules: [close])
        let stream = try fixture.connect()
        let outcome = WireExchange.send(
            ProxyForwardingTests.creation(length: 10), body: Array(repeating: 1, count: 10), over: stream)
        stream.close()
        #expect(outcome.final == nil)
        #expect(outcome.failure == "end of stream")
        Self.waitForCloses(fixture.proxy)
        #expect(Self.closes(fixture.proxy.transcript).first.map { $0.0 == .proxy && $0.1 == .fin } == true)
    }

    @Test func refuseResetsNewConnectionsBeforeAnyByte() throws {
        let refuse = try Self.rule(#"{"name": "down", "action": "refuse"}"#)
        let fixture = try ProxyFixture(rules: [refuse])
        // The RST can beat the connect's own completion check; either way no request gets through.
        if let stream = try? fixture.connect() {
            let outcome = WireExchange.send(ProxyForwardingTests.creation(length: 1), body: [1], over: stream)
            stream.close()
            #expect(outcome.final == nil)
            #expect(outcome.failure != nil)
        }
        Self.waitForCloses(fixture.proxy)
        #expect(fixture.server.uploads().isEmpty)
        #expect(Self.fired(fixture.proxy.transcript).map(\.action) == ["refuse"])
    }

    @Test func respondAnswersInsteadOfTheServer() throws {
        let busy = try Self.rule(
            #"{"name": "busy", "match": {"method": "POST"}, "action": "respond", "status": 503, "headers": {"Retry-After": "2"}, "body": "later"}"#
        )
        let fixture = try ProxyFixture(rules: [busy])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(100_000)
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        #expect(outcome.final?.status == 503)
        #expect(outcome.final?.fields["Retry-After"] == "2")
        #expect(outcome.body == Array("later".utf8))
        // The connection stays usable: the next request reaches the server.
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        let second = WireExchange.send(head, over: stream)
        stream.close()
        #expect(second.final?.status == 200)
        #expect(fixture.server.uploads().isEmpty)
    }

    @Test func stripInterimDropsThe104ButNotTheFinalResponse() throws {
        let strip = try Self.rule(#"{"name": "lose-104", "action": "strip-interim"}"#)
        let fixture = try ProxyFixture(rules: [strip])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(1000)
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(outcome.interims.isEmpty)
        #expect(outcome.final?.status == 201)
        #expect(fixture.proxy.transcript.events.contains { if case .interimResponse = $0.kind { true } else { false } })
    }

    @Test func dropResponseCutsAfterTheServerCompleted() throws {
        let drop = try Self.rule(#"{"name": "lost-201", "match": {"method": "POST"}, "action": "drop-response"}"#)
        let fixture = try ProxyFixture(rules: [drop])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(5000)
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(outcome.final == nil)
        #expect(outcome.failure == "end of stream")
        let record = try #require(fixture.server.uploads().first)
        #expect(record.complete)
    }

    @Test func rewriteHeaderChangesBothDirections() throws {
        let downstream = try Self.rule(
            #"{"name": "tag", "action": "rewrite-header", "header": "X-Squall", "value": "yes"}"#)
        let upstream = try Self.rule(
            #"{"name": "no-interop", "action": "rewrite-header", "direction": "upstream", "header": "Upload-Draft-Interop-Version"}"#
        )
        let fixture = try ProxyFixture(rules: [downstream, upstream])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(1000)
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(outcome.final?.fields["X-Squall"] == "yes")
        // Without the interop field the server treats it as a plain upload: no 104.
        #expect(outcome.interims.isEmpty)
    }

    @Test func truncateResponseForwardsOnlyThatManyBodyBytes() throws {
        let truncate = try Self.rule(
            #"{"name": "short", "match": {"method": "GET"}, "action": "truncate-response", "after": 7}"#)
        let fixture = try ProxyFixture(rules: [truncate])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(10)
        let created = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        #expect(created.final?.status == 201)
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        let outcome = WireExchange.send(head, over: stream)
        stream.close()
        #expect(outcome.final?.status == 200)
        #expect(outcome.body.count == 7)
        #expect(outcome.failure != nil)
    }

    @Test func limitClosesAfterThatManyBytes() throws {
        let limit = try Self.rule(#"{"name": "cap", "action": "limit", "bytes": 300, "direction": "upstream"}"#)
        let fixture = try ProxyFixture(rules: [limit])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(10_000)
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(outcome.final == nil)
        Self.waitForCloses(fixture.proxy)
        #expect(fixture.proxy.metrics().bytesUpstream == 300)
    }

    @Test func stallHoldsBytesUntilTheRuleIsRemoved() throws {
        let stall = try Self.rule(#"{"name": "hole", "action": "stall", "direction": "upstream"}"#)
        let fixture = try ProxyFixture(rules: [stall])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(2000)
        _ = WireExchange.send(
            ProxyForwardingTests.creation(length: body.count), body: body, over: stream, readResponse: false)
        #expect(fixture.proxy.waitForTranscript(timeout: .seconds(20)) { !Self.fired($0).isEmpty })
        #expect(fixture.proxy.metrics().bytesUpstream == 0)
        try fixture.proxy.removeFaultRule(named: "hole")
        var outcome = WireOutcome()
        WireExchange.read(.post, from: stream, into: &outcome, deadline: .now + .seconds(20))
        stream.close()
        #expect(outcome.final?.status == 201)
    }

    @Test func latencyAndBandwidthDelayButDeliver() throws {
        let latency = try Self.rule(#"{"name": "slow", "action": "latency", "latency": "150ms"}"#)
        let bandwidth = try Self.rule(
            #"{"name": "thin", "action": "bandwidth", "rate": "512KiB", "direction": "upstream"}"#)
        let fixture = try ProxyFixture(rules: [latency, bandwidth])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(256 * 1024)
        let start = ContinuousClock.now
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        let elapsed = ContinuousClock.now - start
        stream.close()
        #expect(outcome.final?.status == 201)
        // 256 KiB at 512 KiB/s takes about half a second; latency adds 150 ms each way. Only the floor is checked.
        #expect(elapsed >= .milliseconds(450))
        #expect(fixture.server.uploads().first?.sha256 == MessageDigest.hex(of: body))
    }

    @Test func delayResponseAndSliceStillDeliverEverything() throws {
        let delay = try Self.rule(#"{"name": "late", "action": "delay-response", "duration": "200ms"}"#)
        let slice = try Self.rule(
            #"{"name": "pieces", "action": "slice", "size": 100, "variation": 50, "delay": "0ms", "direction": "upstream"}"#
        )
        let fixture = try ProxyFixture(rules: [delay, slice])
        let stream = try fixture.connect()
        let body = ProxyForwardingTests.body(20_000)
        let start = ContinuousClock.now
        let outcome = WireExchange.send(ProxyForwardingTests.creation(length: body.count), body: body, over: stream)
        stream.close()
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(outcome.final?.status == 201)
        #expect(fixture.server.uploads().first?.sha256 == MessageDigest.hex(of: body))
    }
}
