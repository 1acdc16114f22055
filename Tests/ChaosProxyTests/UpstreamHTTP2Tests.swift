import ChaosProxy
import FaultEngine
import Foundation
import HTTP2Wire
import HTTPWire
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing

/// The upstream leg of an HTTP/2 client's connection over HTTP/2 (`ChaosProxyConfiguration.upstreamHTTP2`,
/// `HTTP2Back`): its streams share one HTTP/2 connection to the reference server, chosen by ALPN over TLS or with
/// prior knowledge over cleartext; a fault cutting one stream resets that stream upstream only.
@Suite struct UpstreamHTTP2Tests {
    private static let version = ["-H", "Upload-Draft-Interop-Version: 8"]

    private static func fixture(
        upstreamTLS: Bool, upstreamHTTP2: UpstreamHTTP2, serverHTTP2: Bool = true, rules: [FaultRule] = []
    ) throws -> ProxyFixture {
        try ProxyFixture(rules: rules, tls: true, upstreamTLS: upstreamTLS, serverHTTP2: serverHTTP2) {
            $0.http2 = true
            $0.upstreamHTTP2 = upstreamHTTP2
        }
    }

    /// `count` uploads of about 1 MiB multiplexed on one client connection (curl --parallel over HTTP/2).
    private static func parallelUploads(_ fixture: ProxyFixture, count: Int) throws -> TLSFixtures.ToolResult {
        var arguments = ["-sS", "--parallel"]
        for index in 0..<count {
            let path = fixture.folder.file("photo\(index).bin")
            try Data(repeating: UInt8(index), count: (1 << 20) + index).write(to: URL(fileURLWithPath: path))
            if index > 0 { arguments.append("--next") }
            arguments +=
                ["--http2", "--cacert", fixture.authority!.certificatePath, "-o", "/dev/null", "--max-time", "30"]
                + version + ["-H", "Upload-Complete: ?1", "--data-binary", "@" + path, fixture.proxy.url + "/upload"]
        }
        return try TLSFixtures.runTool("curl", arguments)
    }

    private static func upstreamALPN(_ transcript: Transcript) -> [String?] {
        transcript.events.compactMap { event in
            if case .tlsEstablished(.upstream, let session) = event.kind { return session.alpn }
            return nil
        }
    }

    /// Over TLS (ALPN chooses h2, `auto`) and over cleartext (prior knowledge, `on`): three streams, one upstream
    /// connection, three complete uploads.
    @Test(arguments: [true, false])
    func aConnectionsStreamsShareOneHTTP2ConnectionUpstream(upstreamTLS: Bool) throws {
        let fixture = try Self.fixture(upstreamTLS: upstreamTLS, upstreamHTTP2: upstreamTLS ? .auto : .on)
        let result = try Self.parallelUploads(fixture, count: 3)
        #expect(result.status == 0, "\(result.standardError)")
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 4)
        let records = fixture.server.uploads()
        #expect(records.count == 3 && records.allSatisfy(\.complete), "\(records)")
        #expect(fixture.server.connectionsAccepted == 1)
        if upstreamTLS {
            let alpn = Self.upstreamALPN(fixture.proxy.transcript)
            #expect(alpn.count == 3 && alpn.allSatisfy { $0 == "h2" }, "\(alpn)")
        }
    }

    /// Negative controls: with `off`, and with `auto` over cleartext, each stream goes upstream as an HTTP/1.1
    /// connection of its own; an upstream that does not choose h2 in ALPN gets HTTP/1.1 too.
    @Test(arguments: [(false, UpstreamHTTP2.off, true), (false, .auto, true), (true, .auto, false)])
    func otherwiseEachStreamHasAnHTTP11ConnectionUpstream(
        upstreamTLS: Bool, upstreamHTTP2: UpstreamHTTP2, serverHTTP2: Bool
    ) throws {
        let fixture = try Self.fixture(
            upstreamTLS: upstreamTLS, upstreamHTTP2: upstreamHTTP2, serverHTTP2: serverHTTP2)
        let result = try Self.parallelUploads(fixture, count: 3)
        #expect(result.status == 0, "\(result.standardError)")
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 4)
        #expect(fixture.server.uploads().filter(\.complete).count == 3)
        #expect(fixture.server.connectionsAccepted == 3)
        if upstreamTLS {
            let alpn = Self.upstreamALPN(fixture.proxy.transcript)
            #expect(alpn.count == 3 && alpn.allSatisfy { $0 == "http/1.1" }, "\(alpn)")
        }
    }

    /// A `reset-stream` at 512 KiB of one of three streams: its stream is reset upstream (the server keeps the bytes
    /// that reached it, to resume from), and the other two uploads complete over the same upstream connection.
    @Test func aResetStreamCutsOneStreamUpstreamAndTheUploadResumes() throws {
        let rule = try FaultRule.parse(
            #"""
            {"name": "cancel", "match": {"method": "POST"}, "trigger": {"at-offset": "512KiB"},
             "action": "reset-stream", "code": "CANCEL", "times": 1}
            """#)
        let fixture = try Self.fixture(upstreamTLS: false, upstreamHTTP2: .on, rules: [rule])
        let result = try Self.parallelUploads(fixture, count: 3)
        #expect(result.standardError.contains("CANCEL (err 8)"), "\(result.standardError)")
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 4)
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == ["cancel"])
        let records = fixture.server.uploads()
        #expect(records.count == 3 && records.filter(\.complete).count == 2, "\(records)")
        #expect(fixture.server.connectionsAccepted == 1)
        let cut = try #require(records.first { !$0.complete })
        #expect(try ProxyFaultTests.offset(of: cut.id, on: fixture) == 512 << 10)
    }
}

/// The decrypted capture of an HTTP/2 upstream leg: the shared connection's frames, which tshark decodes.
@Suite struct UpstreamHTTP2CaptureTests {
    @Test func theUpstreamLegsFramesAreCapturedAndTsharkDecodesThem() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let pcap = folder.file("decrypted.pcap")
        let fixture = try ProxyFixture(tls: true, serverHTTP2: true) { configuration in
            configuration.http2 = true
            configuration.upstreamHTTP2 = .on
            configuration.decryptedCapturePath = pcap
        }
        let path = fixture.folder.file("photo.bin")
        try Data(repeating: 3, count: 1 << 20).write(to: URL(fileURLWithPath: path))
        let result = try TLSFixtures.runTool(
            "curl",
            [
                "-sS", "--http2", "--cacert", fixture.authority!.certificatePath, "-o", "/dev/null", "-w",
                "%{http_version} %{http_code}", "-H", "Upload-Draft-Interop-Version: 8", "-H", "Upload-Complete: ?1",
                "--data-binary", "@" + path, fixture.proxy.url + "/upload",
            ])
        #expect(result.standardOutput == "2 200", "\(result.standardError)")
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 2)
        fixture.proxy.stop()
        let port = try #require(fixture.server.url.split(separator: ":").last.map(String.init))
        let heads = try Tshark.lines(
            ["-r", pcap, "-d", "tcp.port==\(port),http2", "-Y", "http2.type == 1 && tcp.port == \(port)"] + [
                "-T", "fields", "-E", "occurrence=a", "-e", "http2.headers.method", "-e", "http2.headers.status",
            ])
        let seen = heads.flatMap { $0.split { $0 == "," || $0 == "\t" }.map(String.init) }
        #expect(seen.contains("POST") && seen.contains("104") && seen.contains("200"), "\(heads)")
    }
}

/// An HTTP/2 upstream scripted by path, cleartext with prior knowledge, for what the reference server never does:
/// `/refuse` resets its stream with `REFUSED_STREAM`; `/big` answers 4 MiB; `/big-then-goaway` answers 4 MiB and
/// sends `GOAWAY` right after queueing them. Each connection on a thread of its own, until the listener closes.
final class ScriptedHTTP2Upstream: @unchecked Sendable {
    static let bigSize = 4 << 20
    let listener: TCPListener
    var url: String { "http://\(listener.address)" }

    init() throws {
        listener = try TCPListener("127.0.0.1:0")
        let listener = self.listener
        ConnectionThread(name: "scripted-h2-accept") {
            while let socket = try? listener.accept() {
                ConnectionThread(name: "scripted-h2") { Self.serve(PlainStream(socket: socket)) }
            }
        }
    }

    deinit {
        listener.close()
    }

    private static func serve(_ connection: PlainStream) {
        defer { connection.close() }
        guard let session = try? HTTP2Session(role: .server) else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let body = [UInt8](repeating: 5, count: bigSize)
        do {
            while true {
                while case let output = try session.takeOutput(), !output.isEmpty {
                    try connection.writeAll(output)
                }
                if session.isFinished { return }
                let count = try buffer.withUnsafeMutableBytes { try connection.readSome(into: $0) }
                if count == 0 { return }
                for event in try session.receive(Array(buffer[..<count])) {
                    guard case .headers(let stream, let fields, _) = event, let head = HTTP2Heads.request(fields)
                    else { continue }
                    switch head.target {
                    case "/refuse":
                        session.reset(stream, code: .refusedStream)
                    case "/big", "/big-then-goaway":
                        let response = ResponseHead(status: 200, fields: ["Content-Length": String(bigSize)])
                        try session.submitResponse(HTTP2Heads.fields(of: response), on: stream, endStream: false)
                        session.send(body, on: stream)
                        session.end(stream)
                        if head.target == "/big-then-goaway" { session.goAway(lastStream: stream) }
                    default:
                        let response = ResponseHead(status: 404, fields: ["Content-Length": "0"])
                        try session.submitResponse(HTTP2Heads.fields(of: response), on: stream, endStream: true)
                    }
                }
            }
        } catch {
            // The proxy went away.
        }
    }
}

/// What only an HTTP/2 upstream does, through the shared upstream connection (`HTTP2Back`): its refusal reaches the
/// client with its code; downloads the client cancels give their flow-control windows back (else the shared
/// connection's window runs dry and every stream on it stalls); a response whole before the upstream's `GOAWAY`
/// reaches the client whole.
@Suite struct UpstreamHTTP2EdgeTests {
    private static func setup() throws -> (ScriptedHTTP2Upstream, ChaosProxy, HTTP2Client, CertificateAuthority) {
        let upstream = try ScriptedHTTP2Upstream()
        let folder = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: folder)
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: try UpstreamTarget(parsing: upstream.url))
        configuration.authority = authority
        configuration.http2 = true
        configuration.upstreamHTTP2 = .on
        let proxy = try ChaosProxy(configuration: configuration)
        let client = try HTTP2Client(url: proxy.url, authority: authority)
        return (upstream, proxy, client, authority)
    }

    @Test func anUpstreamsRefusalReachesTheClientWithItsCode() throws {
        let (upstream, proxy, client, _) = try Self.setup()
        defer { withExtendedLifetime((upstream, proxy)) { proxy.stop() } }
        let stream = try client.open(.get, "/refuse", [], end: true)
        let result = try client.finish(stream)
        #expect(result.final == nil)
        #expect(result.closed == .refusedStream, "\(result)")
    }

    @Test func cancelledDownloadsGiveTheirWindowsBack() throws {
        let (upstream, proxy, client, _) = try Self.setup()
        defer { withExtendedLifetime((upstream, proxy)) { proxy.stop() } }
        // 24 downloads cancelled after their first 64 KiB: each leaves up to a 1 MiB stream window unread, more than
        // the shared connection's 16 MiB window in all.
        for _ in 0..<24 {
            let stream = try client.open(.get, "/big", [], end: true)
            try client.run { ($0.streams[stream]?.body.count ?? 0) >= 64 << 10 }
            client.session.reset(stream, code: .cancel)
        }
        let last = try client.open(.get, "/big", [], end: true)
        let result = try client.finish(last)
        #expect(result.final?.status == 200)
        #expect(result.body.count == ScriptedHTTP2Upstream.bigSize)
    }

    @Test func aResponseWholeBeforeTheUpstreamsGoawayReachesTheClientWhole() throws {
        let (upstream, proxy, client, _) = try Self.setup()
        defer { withExtendedLifetime((upstream, proxy)) { proxy.stop() } }
        let stream = try client.open(.get, "/big-then-goaway", [], end: true)
        let result = try client.finish(stream)
        #expect(result.final?.status == 200)
        #expect(result.body.count == ScriptedHTTP2Upstream.bigSize, "\(result.body.count)")
        #expect(result.closed == .noError)
        // The next stream goes to a new upstream connection.
        let next = try client.open(.get, "/big", [], end: true)
        #expect(try client.finish(next).body.count == ScriptedHTTP2Upstream.bigSize)
    }
}
