import ChaosProxy
import Dispatch
import Glibc
import HTTPWire
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing

/// The proxy's limits end to end, in front of an upstream that counts its connections: an idle client costs no
/// upstream connection (one comes with the request), a head too slow is the proxy's to cut (408), an idle
/// kept-alive connection closes, one over the limit gets 503.
@Suite struct ProxyLimitsTests {
    let folder: TLSFixtures.TemporaryDirectory
    let upstream: ScriptedServer

    init() throws {
        folder = try TLSFixtures.TemporaryDirectory()
        upstream = try ScriptedServer(steps: Array(repeating: ScriptedStep(respond: 200), count: 8))
    }

    /// A proxy in front of `upstream` with these limits (TLS from clients when `tls`).
    func proxy(
        tls: Bool = false, head: Duration = .seconds(10), idle: Duration = .seconds(90), connections: Int = 4096
    ) throws -> ChaosProxy {
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: try UpstreamTarget(parsing: upstream.url))
        if tls { configuration.authority = try CertificateAuthority.loadOrCreate(directory: folder.file("ca")) }
        configuration.limits = ListenerLimits(headTimeout: head, idleTimeout: idle, maximumConnections: connections)
        return try ChaosProxy(configuration: configuration)
    }

    /// A client connection to `proxy`, its TLS handshake done when the proxy has a CA.
    func connect(_ proxy: ChaosProxy) throws -> any ByteStream {
        let socket = try TCPConnector.connect(to: proxy.address)
        try socket.setNonBlocking(true)
        guard proxy.configuration.authority != nil else { return PlainStream(socket: socket) }
        let trust = TLSClientConfiguration(trust: .caFile(folder.file("ca") + "/ca.pem"))
        let stream = try TLSStream(socket: socket, context: TLSContext(client: trust), serverName: "127.0.0.1")
        try stream.handshake(timeout: .seconds(10))
        return stream
    }

    static let get = RequestHead(method: .get, target: "/a", fields: ["Host": "127.0.0.1"])

    static func read(_ method: HTTPMethod = .get, from stream: any ByteStream) -> WireOutcome {
        var outcome = WireOutcome()
        WireExchange.read(method, from: stream, into: &outcome, deadline: .now + .seconds(10))
        return outcome
    }

    static func closes(_ transcript: Transcript) -> [Int] {
        transcript.events.compactMap { event in if case .closed = event.kind { event.connection } else { nil } }
    }

    /// The idle client is answered 408 at the head timeout; by then an upstream connection opened at the accept would
    /// long be there. The client that sends a request gets its upstream connection.
    @Test func anIdleClientCostsNoUpstreamConnectionAndARequestGetsOne() throws {
        let proxy = try proxy(tls: true, head: .milliseconds(400))
        defer { proxy.stop() }
        let idle = try connect(proxy)
        defer { idle.close() }
        #expect(proxy.waitForTranscript(timeout: .seconds(10)) { Self.closes($0).count == 1 })
        #expect(upstream.connectionCount == 0)
        #expect(Self.read(from: idle).final?.status == 408)

        let busy = try connect(proxy)
        defer { busy.close() }
        #expect(WireExchange.send(Self.get, over: busy).final?.status == 200)
        #expect(upstream.connectionCount == 1)
    }

    /// A server that speaks first (an SMTP-like greeting) is heard through a tcp listener that connects at the accept:
    /// the main one with `upstreamAtAccept`, and a Toxiproxy one always. Without it (the negative control) the client
    /// hears nothing and is closed at the head timeout.
    @Test func aServerThatSpeaksFirstIsHeardWhenTheUpstreamIsConnectedAtTheAccept() throws {
        let greeter = try LoopbackServer.start { socket in
            let stream = PlainStream(socket: socket)
            try? stream.writeAll(Array("220 hello\r\n".utf8), deadline: .now + LoopbackServer.patience)
            try? stream.shutdownWrite(deadline: .now + LoopbackServer.patience)
            _ = try? stream.readToEnd(limit: 1024, deadline: .now + LoopbackServer.patience)
            stream.close()
        }
        defer { greeter.stop() }
        func greeting(atAccept: Bool, toxiproxy: Bool = false) throws -> String {
            var configuration = ChaosProxyConfiguration(
                listen: try SocketAddress(parsing: "127.0.0.1:0"),
                upstream: UpstreamTarget(host: "127.0.0.1", port: greeter.address.port, tls: false))
            configuration.mode = .tcp
            configuration.upstreamAtAccept = atAccept
            configuration.limits.headTimeout = .milliseconds(300)
            let proxy = try ChaosProxy(configuration: configuration)
            defer { proxy.stop() }
            var address = proxy.address
            if toxiproxy {
                let listen = try proxy.startListener(
                    proxy: "smtp", listen: "127.0.0.1:0", upstream: "127.0.0.1:\(greeter.address.port)")
                address = try SocketAddress(parsing: listen)
            }
            let client = PlainStream(socket: try TCPConnector.connect(to: address))
            defer { client.close() }
            return String(decoding: try client.readToEnd(limit: 1024, deadline: .now + .seconds(10)), as: UTF8.self)
        }
        #expect(try greeting(atAccept: true) == "220 hello\r\n")
        #expect(try greeting(atAccept: false, toxiproxy: true) == "220 hello\r\n")
        #expect(try greeting(atAccept: false) == "")
    }

    /// One byte every 100 ms: the proxy answers 408 at its head timeout and never bothers the upstream.
    @Test func aSlowHeadIsCutByTheProxysHeadTimeout() throws {
        let proxy = try proxy(head: .milliseconds(500))
        defer { proxy.stop() }
        let started = ContinuousClock.now
        let client = try connect(proxy)
        defer { client.close() }
        let trickler = Trickler(client)
        let outcome = Self.read(from: client)
        trickler.stop()
        #expect(outcome.final?.status == 408)
        #expect(String(decoding: outcome.body, as: UTF8.self).contains("--head-timeout"))
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(3))
        #expect(upstream.connectionCount == 0)
    }

    @Test func aKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws {
        let proxy = try proxy(idle: .milliseconds(300))
        defer { proxy.stop() }
        let client = try connect(proxy)
        defer { client.close() }
        #expect(WireExchange.send(Self.get, over: client).final?.status == 200)
        let answered = ContinuousClock.now
        #expect(try client.readToEnd(limit: 64, deadline: .now + .seconds(10)) == [])
        let elapsed = ContinuousClock.now - answered
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(5))
        #expect(proxy.waitForTranscript(timeout: .seconds(10)) { Self.closes($0).count == 1 })
        #expect(proxy.transcript.events.last?.kind == .closed(side: .proxy, kind: .fin))
    }

    @Test func theConnectionOverTheLimitGets503() throws {
        let proxy = try proxy(tls: true, connections: 2)
        defer { proxy.stop() }
        let held = try (0..<2).map { _ in try connect(proxy) }
        defer { for stream in held { stream.close() } }
        // Both are served: each got its own flow, which records its opening.
        #expect(proxy.waitForTranscript(timeout: .seconds(10)) { $0.events.count { $0.kind.isOpened } == 2 })
        let extra = try connect(proxy)
        defer { extra.close() }
        let refused = WireExchange.send(Self.get, over: extra)
        #expect(refused.final?.status == 503)
        #expect(refused.final?.fields["Connection"] == "close")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("2 connections are open"))
        #expect(String(decoding: refused.body, as: UTF8.self).contains("--max-connections"))
        #expect(proxy.metrics().connectionsShed == 1)
        #expect(upstream.connectionCount == 0)
    }
}

/// Writes a request head one byte every 100 ms on a thread of its own until it is stopped or a write fails.
private final class Trickler: Sendable {
    private let stopped = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ stream: any ByteStream) {
        let handed = HandedStream(stream: stream)
        let bytes =
            Array("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ".utf8) + Array(repeating: 0x61, count: 200)
        DispatchQueue.global().async { [stopped, done] in
            for byte in bytes {
                guard stopped.wait(timeout: .now() + .milliseconds(100)) == .timedOut else { break }
                guard (try? handed.stream.writeAll([byte], deadline: .now + .seconds(1))) != nil else { break }
            }
            done.signal()
        }
    }

    func stop() {
        stopped.signal()
        done.wait()
    }
}

/// A stream handed to the trickling thread, which alone writes to it.
private struct HandedStream: @unchecked Sendable {
    let stream: any ByteStream
}

extension TranscriptEvent.Kind {
    fileprivate var isOpened: Bool {
        if case .opened = self { true } else { false }
    }
}
