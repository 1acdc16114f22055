import ChaosProxy
import ControlAPI
import FaultEngine
import Foundation
import HTTPWire
import ProxyFlow
import ProxyTranscript
import SquallNet
import TestSupport
import Testing

/// The proxy as the control API drives it: rules changed while connections live, fires, tcp mode, Toxiproxy
/// listeners, the transcript file.
@Suite struct ProxyRuntimeTests {
    @Test func expireAuthRejectsTokensSeenBeforeTheRuleArmed() throws {
        let fixture = try ProxyFixture()
        let stream = try fixture.connect()
        func get(_ token: String) -> Int? {
            let head = RequestHead(
                method: .get, target: "/_squall/uploads",
                fields: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)"])
            return WireExchange.send(head, over: stream).final?.status
        }
        #expect(get("old") == 200)
        try fixture.proxy.addFaultRules([ProxyFaultTests.rule(#"{"name": "expire", "action": "expire-auth"}"#)])
        #expect(get("old") == 401)
        #expect(get("new") == 200)
        #expect(get("new") == 200)
        stream.close()
    }

    @Test func aRuleAddedLaterAppliesToLiveConnectionsAndStopsWhenRemoved() throws {
        let fixture = try ProxyFixture()
        let stream = try fixture.connect()
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        #expect(WireExchange.send(head, over: stream).final?.status == 200)
        try fixture.proxy.addFaultRules([ProxyFaultTests.rule(#"{"name": "hole", "action": "stall"}"#)])
        #expect(throws: ControlAPIError.self) {
            try fixture.proxy.addFaultRules([ProxyFaultTests.rule(#"{"name": "hole", "action": "close"}"#)])
        }
        _ = WireExchange.send(head, over: stream, readResponse: false)
        // The live connection arms the new rule when the change reaches it (its inbox, or its next read).
        let fired = fixture.proxy.waitForTranscript(timeout: .seconds(10)) { transcript in
            transcript.events.contains {
                if case .faultFired(let fault) = $0.kind { fault.rule == "hole" } else { false }
            }
        }
        #expect(fired)
        #expect(fixture.proxy.metrics().faultsFired["hole"] == 1)
        try fixture.proxy.removeFaultRule(named: "hole")
        var outcome = WireOutcome()
        WireExchange.read(.get, from: stream, into: &outcome, deadline: .now + .seconds(20))
        #expect(outcome.final?.status == 200)
        #expect(throws: ControlAPIError.self) { try fixture.proxy.removeFaultRule(named: "hole") }
        stream.close()
    }

    @Test func aScenarioLoadedWithASeedAppliesToLiveConnections() throws {
        let fixture = try ProxyFixture()
        let stream = try fixture.connect()
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        #expect(WireExchange.send(head, over: stream).final?.status == 200)
        let busy = try ProxyFaultTests.rule(
            #"{"name": "busy", "match": {"method": "GET"}, "action": "respond", "status": 503}"#)
        fixture.proxy.replaceFaultRules([busy], seed: 99)
        #expect(WireExchange.send(head, over: stream).final?.status == 503)
        stream.close()
    }

    @Test func aBlackholeEndsOnceBothPeersAreDone() throws {
        let echo = try LoopbackServer.echo()
        defer { echo.stop() }
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"),
            upstream: UpstreamTarget(host: "127.0.0.1", port: echo.address.port, tls: false))
        configuration.mode = .tcp
        configuration.rules = [
            try ProxyFaultTests.rule(#"{"name": "hole", "action": "stall", "direction": "downstream"}"#)
        ]
        let proxy = try ChaosProxy(configuration: configuration)
        defer { proxy.stop() }
        let stream = PlainStream(socket: try TCPConnector.connect(to: proxy.address))
        try stream.writeAll(Array("ping".utf8))
        try stream.shutdownWrite(deadline: .now + .seconds(20))
        // The echo answers and ends; the answer is held forever, so once both ends are done the proxy closes.
        #expect(try stream.readToEnd(limit: 100, deadline: .now + .seconds(20)).isEmpty)
        stream.close()
        ProxyFaultTests.waitForCloses(proxy)
        #expect(proxy.liveConnections().isEmpty)
        #expect(ProxyFaultTests.closes(proxy.transcript).first.map { $0.0 == .proxy && $0.1 == .fin } == true)
    }

    @Test func fireResetsALiveConnectionNow() throws {
        let fixture = try ProxyFixture()
        let stream = try fixture.connect()
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        #expect(WireExchange.send(head, over: stream).final?.status == 200)
        let connection = try #require(fixture.proxy.liveConnections().first)
        #expect(connection.requests == 1)
        try fixture.proxy.fire(.reset, direction: .both, on: connection.id, name: "manual")
        var outcome = WireOutcome()
        WireExchange.read(.get, from: stream, into: &outcome, deadline: .now + .seconds(20))
        #expect(outcome.final == nil)
        #expect(throws: ControlAPIError.self) { try fixture.proxy.fire(.reset, direction: .both, on: 999, name: "x") }
        #expect(throws: ControlAPIError.self) {
            try fixture.proxy.fire(.stripInterim, direction: .both, on: connection.id, name: "x")
        }
        ProxyFaultTests.waitForCloses(fixture.proxy)
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == ["manual"])
    }

    @Test func tcpModePassesBytesAndAppliesConnectionFaults() throws {
        let echo = try LoopbackServer.echo()
        defer { echo.stop() }
        let folder = try TLSFixtures.TemporaryDirectory()
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"),
            upstream: UpstreamTarget(host: "127.0.0.1", port: echo.address.port, tls: false))
        configuration.mode = .tcp
        configuration.rules = [
            try ProxyFaultTests.rule(
                #"{"name": "slow", "action": "latency", "latency": "100ms", "direction": "downstream"}"#)
        ]
        configuration.transcriptPath = folder.file("transcript.jsonl")
        let proxy = try ChaosProxy(configuration: configuration)
        let stream = PlainStream(socket: try TCPConnector.connect(to: proxy.address))
        let message = Array("not http at all\r\n\r\n".utf8)
        let start = ContinuousClock.now
        try stream.writeAll(message)
        try stream.shutdownWrite(deadline: .now + .seconds(20))
        let echoed = try stream.readToEnd(limit: 1000, deadline: .now + .seconds(20))
        stream.close()
        #expect(echoed == message)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        ProxyFaultTests.waitForCloses(proxy)
        proxy.stop()
        let lines = try String(contentsOfFile: folder.file("transcript.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try TranscriptEvent(jsonLine: String($0)) }
        // The file starts with the wall clock of the proxy's start; JSON Lines keep microseconds; the events are
        // otherwise the same.
        guard case .started(let startedAt) = lines.first?.kind else {
            Issue.record("the transcript file does not start with the proxy's start: \(lines.first.map(\.kind) as Any)")
            return
        }
        #expect(abs(startedAt - Int64(Date().timeIntervalSince1970 * 1_000_000)) < 600_000_000)
        #expect(lines.dropFirst().map(\.kind) == proxy.transcript.events.map(\.kind))
        #expect(lines.contains { if case .faultFired = $0.kind { true } else { false } })
    }

    @Test func toxiproxyListenersForwardAndReportTheirPort() throws {
        let echo = try LoopbackServer.echo()
        defer { echo.stop() }
        let fixture = try ProxyFixture()
        let bound = try fixture.proxy.startListener(
            proxy: "redis", listen: "127.0.0.1:0", upstream: "127.0.0.1:\(echo.address.port)")
        let address = try SocketAddress(parsing: bound)
        #expect(address.port != 0)
        let stream = PlainStream(socket: try TCPConnector.connect(to: address))
        try stream.writeAll(Array("ping".utf8))
        try stream.shutdownWrite(deadline: .now + .seconds(20))
        #expect(try stream.readToEnd(limit: 100, deadline: .now + .seconds(20)) == Array("ping".utf8))
        stream.close()
        #expect(throws: ControlAPIError.self) {
            _ = try fixture.proxy.startListener(proxy: "far", listen: "10.1.2.3:0", upstream: "127.0.0.1:1")
        }
        fixture.proxy.stopListener(proxy: "redis")
        #expect(throws: (any Error).self) { _ = try TCPConnector.connect(to: address) }
    }

    @Test func anUnreachableUpstreamGetsA502NamingIt() throws {
        let upstream = try UnreachableUpstream.target()
        let port = upstream.port
        let proxy = try ChaosProxy(
            configuration: ChaosProxyConfiguration(
                listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: upstream))
        defer { proxy.stop() }
        let stream = PlainStream(socket: try TCPConnector.connect(to: proxy.address))
        let head = RequestHead(method: .get, target: "/", fields: ["Host": "127.0.0.1"])
        let outcome = WireExchange.send(head, over: stream)
        stream.close()
        #expect(outcome.final?.status == 502)
        #expect(String(decoding: outcome.body, as: UTF8.self).contains("127.0.0.1:\(port)"))
    }

    /// A gateway answers a HEAD without a body (RFC 9110 §9.3.2): a body would be read as the next response.
    @Test func anUnreachableUpstreamAnswersAHeadWithoutABodyAndRecordsTheExchange() throws {
        let proxy = try ChaosProxy(
            configuration: ChaosProxyConfiguration(
                listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: try UnreachableUpstream.target()))
        defer { proxy.stop() }
        let stream = PlainStream(socket: try TCPConnector.connect(to: proxy.address))
        defer { stream.close() }
        try stream.writeAll(Array("HEAD /upload/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let answer = String(
            decoding: try stream.readToEnd(limit: 1 << 16, deadline: .now + .seconds(10)), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n") && answer.hasSuffix("\r\n\r\n"))
        #expect(!answer.contains("unreachable"))
        let recorded = proxy.waitForTranscript(timeout: .seconds(10)) { transcript in
            transcript.events.contains { if case .closed = $0.kind { true } else { false } }
        }
        #expect(recorded)
        let kinds = proxy.transcript.events.map(\.kind)
        #expect(kinds.contains { if case .requestHead(1, let head) = $0 { head.method == .head } else { false } })
        #expect(kinds.contains { if case .finalResponse(1, let head) = $0 { head.status == 502 } else { false } })
    }

    @Test func upstreamTargetsParseAndRejectClearly() throws {
        #expect(
            try UpstreamTarget(parsing: "https://example.com")
                == UpstreamTarget(host: "example.com", port: 443, tls: true))
        #expect(
            try UpstreamTarget(parsing: "http://[::1]:8080/x") == UpstreamTarget(host: "::1", port: 8080, tls: false))
        #expect(
            try UpstreamTarget(parsing: "127.0.0.1:6379") == UpstreamTarget(host: "127.0.0.1", port: 6379, tls: false))
        #expect(throws: ChaosProxyError.self) { try UpstreamTarget(parsing: "ftp://x:1") }
        #expect(throws: ChaosProxyError.self) { try UpstreamTarget(parsing: "example.com") }
    }
    /// `GET /squall/events` reads the transcript in batches: a reader far behind gets the first 4096 lines, then the
    /// rest from where it stopped, and one that is up to date waits and gets nothing; lines dropped by the cap are
    /// skipped, never repeated.
    @Test func theEventStreamReadsTheTranscriptInBatches() throws {
        let fixture = try ProxyFixture()
        let stream = try fixture.connect()
        defer { stream.close() }
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        while fixture.proxy.transcript.appendedCount <= 4096 + 10 {
            #expect(WireExchange.send(head, over: stream).final?.status == 200)
        }
        // The proxy may still record the end of the last exchange after the client has read its response: every
        // count below is checked against what the reader was given, never against an earlier total.
        let total = fixture.proxy.transcript.appendedCount
        let first = fixture.proxy.waitForTranscriptLines(from: 0, timeout: .zero)
        #expect(first.next == 4096 && first.lines.split(separator: "\n").count == 4096)
        let rest = fixture.proxy.waitForTranscriptLines(from: first.next, timeout: .zero)
        #expect(rest.next >= total && rest.lines.split(separator: "\n").count == rest.next - 4096)
        #expect(fixture.proxy.transcriptLines(from: 0).lines.hasPrefix(first.lines + rest.lines))
        let after = fixture.proxy.waitForTranscriptLines(from: rest.next, timeout: .milliseconds(20))
        #expect(after.lines.split(separator: "\n").count == after.next - rest.next)
    }

    @Test func theEventStreamSkipsWhatTheCapDropped() throws {
        let head = RequestHead(method: .get, target: "/_squall/uploads", fields: ["Host": "127.0.0.1"])
        // The bound: what one exchange's events take, measured on a proxy without one, so that four drop some.
        let measuring = try ProxyFixture()
        let probe = try measuring.connect()
        #expect(WireExchange.send(head, over: probe).final?.status == 200)
        probe.close()
        measuring.proxy.stop()
        let exchange = measuring.proxy.transcript.keptBytes
        let fixture = try ProxyFixture(adjust: { $0.transcriptMemory = exchange })
        let stream = try fixture.connect()
        defer { stream.close() }
        for _ in 0..<4 { #expect(WireExchange.send(head, over: stream).final?.status == 200) }
        let lines = fixture.proxy.waitForTranscriptLines(from: 0, timeout: .zero)
        let transcript = fixture.proxy.transcript  // after: it may hold a late event more, never fewer
        let given = lines.lines.split(separator: "\n").map(String.init)
        #expect(!given.isEmpty && lines.next > given.count, "only the kept events, from the first one kept")
        let index = lines.next - 1 - transcript.droppedCount
        #expect(transcript.events.indices.contains(index) && given.last == transcript.events[index].jsonLine())
        let last = fixture.proxy.waitForTranscriptLines(from: lines.next - 1, timeout: .zero)
        #expect(last.lines.hasPrefix(given[given.count - 1] + "\n") && last.next >= lines.next)
    }
}
