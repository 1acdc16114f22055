import ChaosProxy
import FaultEngine
import Foundation
import HTTPWire
import ProxyTranscript
import TestSupport
import Testing

/// The proxy's client leg over HTTP/2 (`ChaosProxyConfiguration.http2`), with curl as the client (its own HTTP/2,
/// libcurl over libnghttp2): each stream proxied as an exchange of its own to the HTTP/1.1 reference server, 104s
/// carried as HEADERS frames, a fault cutting one stream (`RST_STREAM`) while the upload resumes over HTTP/2.
@Suite struct ProxyHTTP2Tests {
    private static let version = ["-H", "Upload-Draft-Interop-Version: 8"]

    private static func fixture(tls: Bool = true, http2: Bool = true, rules: [FaultRule] = []) throws -> ProxyFixture {
        try ProxyFixture(rules: rules, tls: tls) { $0.http2 = http2 }
    }

    /// A file of `count` bytes in the fixture's folder.
    private static func file(_ fixture: ProxyFixture, _ name: String, count: Int) throws -> String {
        let path = fixture.folder.file(name)
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 97) { bytes[index] = UInt8(truncatingIfNeeded: index / 97) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// curl over HTTP/2 to the proxy (ALPN with TLS, prior knowledge without), headers to stdout, then a last line
    /// `version=… status=…`.
    private static func curl(_ fixture: ProxyFixture, _ arguments: [String]) throws -> (status: Int32, lines: [String])
    {
        var all = [
            "-sS", "-D", "-", "-o", "/dev/null", "--max-time", "30", "-w",
            "version=%{http_version} status=%{http_code}\n",
        ]
        if let authority = fixture.authority {
            all += ["--http2", "--cacert", authority.certificatePath]
        } else {
            all += ["--http2-prior-knowledge"]
        }
        let result = try TLSFixtures.runTool("curl", all + arguments)
        let lines = result.standardOutput.split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return (result.status, lines + result.standardError.split(whereSeparator: \.isNewline).map(String.init))
    }

    private static func location(_ lines: [String]) -> String? {
        lines.first { $0.lowercased().hasPrefix("location:") }.map {
            $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces)
        }
    }

    private static func streamClients(_ transcript: Transcript) -> [String] {
        transcript.events.compactMap { event in
            if case .opened(let client, _) = event.kind, client.contains(" h2 stream ") { return client }
            return nil
        }
    }

    @Test(arguments: [true, false])
    func anUploadGoesThroughAsHTTP2WithIts104(tls: Bool) throws {
        let fixture = try Self.fixture(tls: tls)
        let path = try Self.file(fixture, "photo.bin", count: 3 << 20)
        let result = try Self.curl(
            fixture,
            Self.version + ["-H", "Upload-Complete: ?1", "--data-binary", "@" + path, fixture.proxy.url + "/upload"])
        #expect(result.status == 0, "\(result.lines)")
        #expect(result.lines.first == "HTTP/2 104", "\(result.lines)")
        #expect(result.lines.last == "version=2 status=200", "\(result.lines)")
        // The announced resource is the proxy's, as the client reached it.
        #expect(Self.location(result.lines)?.hasPrefix(fixture.proxy.url + "/upload/") == true)
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 2)
        let transcript = fixture.proxy.transcript
        #expect(Self.streamClients(transcript).count == 1)
        // The request is recorded as the client sent it, over HTTP/2, and its line reads back.
        let requests = transcript.events.filter { if case .requestHead = $0.kind { true } else { false } }
        #expect(requests.count == 1)
        for event in requests {
            guard case .requestHead(_, let head) = event.kind else { continue }
            #expect(head.version == .http2)
            #expect(event.jsonLine().contains(#""version":"HTTP/2""#))
            #expect(try TranscriptEvent(jsonLine: event.jsonLine()).kind == event.kind)
        }
        // So are its responses (the 104s and the final one), and the stream says which connection it came on.
        let responses = transcript.events.compactMap { event -> ResponseHead? in
            switch event.kind {
            case .interimResponse(_, let head), .finalResponse(_, let head): head
            default: nil
            }
        }
        #expect(!responses.isEmpty && responses.allSatisfy { $0.version == .http2 })
        let stream = try #require(requests.first?.connection)
        let parent = try #require(
            transcript.events.first { if case .opened(_, _) = $0.kind { true } else { false } }?.connection)
        let marks = transcript.events.filter { $0.connection == stream }.compactMap { event -> String? in
            if case .http2Stream(let connection, let id) = event.kind { return "\(connection) \(id)" }
            return nil
        }
        #expect(marks == ["\(parent) 1"], "\(marks)")
        if tls {
            #expect(
                transcript.events.contains { event in
                    if case .tlsEstablished(_, let session) = event.kind { return session.alpn == "h2" }
                    return false
                })
        }
        let record = try #require(fixture.server.uploads().first)
        #expect(record.complete && record.durableOffset == 3 << 20)
    }

    /// A reset at 1 MiB of the creation cuts its stream (curl: "stream 1 was not closed cleanly"); HEAD over HTTP/2
    /// finds every byte forwarded before the cut, and a PATCH of the rest completes the upload.
    @Test func aCutStreamResumesOverHTTP2() throws {
        let rule = try ProxyFaultTests.rule(
            #"{"name": "cut", "match": {"method": "POST"}, "trigger": {"at-offset": "1MiB"}, "action": "reset"}"#)
        let fixture = try Self.fixture(rules: [rule])
        let path = try Self.file(fixture, "photo.bin", count: 3 << 20)
        let cut = try Self.curl(
            fixture,
            Self.version + ["-H", "Upload-Complete: ?1", "--data-binary", "@" + path, fixture.proxy.url + "/upload"])
        #expect(cut.status == 92, "\(cut.lines)")  // CURLE_HTTP2_STREAM
        #expect(cut.lines.contains { $0.contains("stream 1 was not closed cleanly") }, "\(cut.lines)")
        let location = try #require(Self.location(cut.lines), "\(cut.lines)")
        let head = try Self.curl(fixture, Self.version + ["-I", location])
        #expect(head.lines.contains("upload-offset: 1048576"), "\(head.lines)")
        let rest = try Self.file(fixture, "rest.bin", count: 2 << 20)
        let patch = try Self.curl(
            fixture,
            Self.version + [
                "-X", "PATCH", "-H", "Upload-Offset: 1048576", "-H", "Upload-Complete: ?1", "-H",
                "Content-Type: application/partial-upload", "--data-binary", "@" + rest, location,
            ])
        #expect(patch.lines.last == "version=2 status=200", "\(patch.lines)")
        let record = try #require(fixture.server.uploads().first)
        #expect(record.complete && record.durableOffset == 3 << 20)
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).count == 1)
    }

    /// Three uploads multiplexed on one connection (curl --parallel): three streams, three exchanges, one client
    /// connection.
    @Test func parallelUploadsShareOneConnection() throws {
        let fixture = try Self.fixture()
        var arguments = ["--parallel"]
        for index in 0..<3 {
            let path = try Self.file(fixture, "photo\(index).bin", count: (1 << 20) + index)
            if index > 0 { arguments.append("--next") }
            arguments +=
                [
                    "--http2", "--cacert", fixture.authority!.certificatePath, "-o", "/dev/null",
                ] + Self.version + [
                    "-H", "Upload-Complete: ?1", "--data-binary", "@" + path, fixture.proxy.url + "/upload",
                ]
        }
        let result = try TLSFixtures.runTool("curl", ["-sS"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 4)
        let transcript = fixture.proxy.transcript
        let clients = Self.streamClients(transcript)
        #expect(clients.count == 3)
        // One client connection carried them (curl reuses it).
        #expect(Set(clients.map { $0.split(separator: " ").first! }).count == 1, "\(clients)")
        let records = fixture.server.uploads()
        #expect(records.count == 3 && records.allSatisfy(\.complete))
        let offsets = records.map(\.durableOffset).sorted()
        let expected: [Int64] = [1_048_576, 1_048_577, 1_048_578]
        #expect(offsets == expected)
    }

    /// The decrypted capture carries the client leg's HTTP/2 frames, which tshark decodes (the request's HEADERS, the
    /// 104 and the 200 as HEADERS frames, the DATA), and each stream's HTTP/1.1 upstream leg.
    @Test func theDecryptedCaptureCarriesHTTP2ThatTsharkDecodes() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let pcap = folder.file("decrypted.pcap")
        let capturing = try ProxyFixture(tls: true) { configuration in
            configuration.http2 = true
            configuration.decryptedCapturePath = pcap
        }
        let path = try Self.file(capturing, "photo.bin", count: 1 << 20)
        let result = try Self.curl(
            capturing,
            Self.version + ["-H", "Upload-Complete: ?1", "--data-binary", "@" + path, capturing.proxy.url + "/upload"])
        #expect(result.lines.last == "version=2 status=200", "\(result.lines)")
        ProxyFaultTests.waitForCloses(capturing.proxy, count: 2)
        capturing.proxy.stop()
        let port = String(capturing.proxy.address.port)
        let decode = ["-d", "tcp.port==\(port),http2"]
        let methods = try Tshark.lines(
            ["-r", pcap] + decode + [
                "-Y", "http2.type == 1", "-T", "fields", "-E", "occurrence=a", "-e",
                "http2.headers.method", "-e", "http2.headers.status",
            ])
        let seen = methods.flatMap { $0.split { $0 == "," || $0 == "\t" }.map(String.init) }
        #expect(seen.contains("POST") && seen.contains("104") && seen.contains("200"), "\(methods)")
        // The stream's exchange upstream, HTTP/1.1 to the server.
        let upstream = try Tshark.values(pcap, filter: "http.request", "http.request.method")
        #expect(upstream == ["POST"], "\(upstream)")
    }

    /// Negative control: without `http2`, ALPN gives curl HTTP/1.1 and no stream is proxied.
    @Test func withoutHTTP2ClientsGetHTTP11() throws {
        let fixture = try Self.fixture(http2: false)
        let path = try Self.file(fixture, "photo.bin", count: 1000)
        let result = try Self.curl(
            fixture,
            Self.version + ["-H", "Upload-Complete: ?1", "--data-binary", "@" + path, fixture.proxy.url + "/upload"])
        #expect(result.lines.last == "version=1.1 status=200", "\(result.lines)")
        #expect(Self.streamClients(fixture.proxy.transcript).isEmpty)
    }
}

/// `reset-stream`: the stream of the exchange is reset with the chosen code, at an upload offset, and the upload
/// resumes; over HTTP/1.1 the same rule never fires and says why.
@Suite struct ResetStreamTests {
    private static let rule = #"""
        {"name": "cancel", "match": {"method": "POST"}, "trigger": {"at-offset": "1MiB"}, "action": "reset-stream",
         "code": "CANCEL"}
        """#

    private static func upload(_ fixture: ProxyFixture, _ protocolFlag: String) throws -> TLSFixtures.ToolResult {
        let path = fixture.folder.file("photo.bin")
        try Data(repeating: 7, count: 3 << 20).write(to: URL(fileURLWithPath: path))
        return try TLSFixtures.runTool(
            "curl",
            [
                "-sS", "-D", "-", "-o", "/dev/null", "--max-time", "30", protocolFlag, "--cacert",
                fixture.authority!.certificatePath, "-H", "Upload-Draft-Interop-Version: 8", "-H",
                "Upload-Complete: ?1",
                "--data-binary", "@" + path, fixture.proxy.url + "/upload",
            ])
    }

    @Test func theStreamIsResetWithTheChosenCodeAndTheUploadResumes() throws {
        let fixture = try ProxyFixture(rules: [try FaultRule.parse(Self.rule)], tls: true) { $0.http2 = true }
        let cut = try Self.upload(fixture, "--http2")
        #expect(cut.status == 92, "\(cut.standardError)")
        #expect(cut.standardError.contains("stream 1 was not closed cleanly: CANCEL (err 8)"), "\(cut.standardError)")
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 2)
        let fired = ProxyFaultTests.fired(fixture.proxy.transcript)
        #expect(fired.map(\.rule) == ["cancel"])
        let id = try #require(fixture.server.uploads().first?.id)
        #expect(try ProxyFaultTests.offset(of: id, on: fixture) == 1 << 20)
        // curl resumes it over HTTP/2 through the proxy, as a client of the draft does: HEAD on the 104's Location
        // for the offset, then a PATCH of the rest.
        let location = try #require(
            cut.standardOutput.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location: ") }?
                .dropFirst("location: ".count))
        let common = ["-sS", "--http2", "--max-time", "30", "--cacert", fixture.authority!.certificatePath]
        let versionField = ["-H", "Upload-Draft-Interop-Version: 8"]
        let head = try TLSFixtures.runTool("curl", common + ["-I"] + versionField + [String(location)])
        #expect(head.standardOutput.hasPrefix("HTTP/2 204"), "\(head.standardOutput)")
        #expect(head.standardOutput.lowercased().contains("upload-offset: 1048576"), "\(head.standardOutput)")
        let rest = fixture.folder.file("rest.bin")
        try Data(repeating: 7, count: (3 << 20) - (1 << 20)).write(to: URL(fileURLWithPath: rest))
        let patch = try TLSFixtures.runTool(
            "curl",
            common + ["-D", "-", "-o", "/dev/null", "-X", "PATCH"] + versionField + [
                "-H", "Upload-Offset: 1048576", "-H", "Upload-Complete: ?1", "-H",
                "Content-Type: application/partial-upload", "--data-binary", "@" + rest, String(location),
            ])
        #expect(patch.status == 0, "\(patch.standardError)")
        #expect(patch.standardOutput.contains("HTTP/2 200"), "\(patch.standardOutput)")
        let record = try #require(fixture.server.uploads().first { $0.id == id })
        #expect(record.complete && record.durableOffset == 3 << 20)
    }

    /// Negative control: the same rule over HTTP/1.1 never fires, the upload completes, and the proxy says why.
    @Test func overHTTP11ItNeverFiresAndSaysWhy() throws {
        let fixture = try ProxyFixture(rules: [try FaultRule.parse(Self.rule)], tls: true) { $0.http2 = true }
        let result = try Self.upload(fixture, "--http1.1")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(fixture.server.uploads().first?.complete == true)
        #expect(fixture.proxy.neverFired == ["cancel"])
        #expect(
            fixture.proxy.neverFiredReasons["cancel"]
                == "reset-stream acts on HTTP/2 streams: POST /upload came over HTTP/1.1")
    }
}

/// `window-stall`: no WINDOW_UPDATE for the stream from an upload offset on, so the client's sending stops once its
/// window is spent while the connection stays up; released after its duration, the upload goes on.
@Suite struct WindowStallTests {
    private static func upload(_ fixture: ProxyFixture, _ extra: [String] = []) throws -> TLSFixtures.ToolResult {
        let path = fixture.folder.file("photo.bin")
        try Data(repeating: 3, count: 8 << 20).write(to: URL(fileURLWithPath: path))
        return try TLSFixtures.runTool(
            "curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_version} %{http_code}", "--max-time", "30", "--http2",
                "--cacert", fixture.authority!.certificatePath, "-H", "Upload-Draft-Interop-Version: 8", "-H",
                "Upload-Complete: ?1", "--data-binary", "@" + path, fixture.proxy.url + "/upload",
            ] + extra)
    }

    private static func rule(_ duration: String?) throws -> FaultRule {
        let held = duration.map { #", "duration": "\#($0)""# } ?? ""
        return try FaultRule.parse(
            #"{"name": "shut", "match": {"method": "POST"}, "trigger": {"at-offset": "1MiB"}, "action": "window-stall"\#(held)}"#
        )
    }

    /// Shut for good: the client's own low-speed limit ends the upload (its read timeout, as a phone's would), with
    /// the server holding what came before the window closed: at least the offset, at most a window (1 MiB) more and
    /// what was between the front and the stream's flow when it fired (the socket pair's buffer, the flow's reads:
    /// under load up to a few hundred KiB; 1 MiB allowed), far below the 8 MiB sent.
    @Test func aWindowNeverReopenedStopsTheClientWhileTheConnectionStaysUp() throws {
        let fixture = try ProxyFixture(rules: [try Self.rule(nil)], tls: true) { $0.http2 = true }
        let result = try Self.upload(fixture, ["--speed-limit", "1000", "--speed-time", "2"])
        #expect(result.status == 28, "\(result.standardOutput) \(result.standardError)")  // CURLE_OPERATION_TIMEDOUT
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == ["shut"])
        ProxyFaultTests.waitForCloses(fixture.proxy, count: 1)
        let id = try #require(fixture.server.uploads().first?.id)
        let offset = try #require(try ProxyFaultTests.offset(of: id, on: fixture))
        #expect(offset >= 1 << 20 && offset <= 3 << 20, "\(offset)")
    }

    /// Negative control: released after its duration, the same upload completes.
    @Test func aWindowReopenedLetsTheUploadFinish() throws {
        let fixture = try ProxyFixture(rules: [try Self.rule("300ms")], tls: true) { $0.http2 = true }
        let result = try Self.upload(fixture)
        #expect(result.standardOutput == "2 200", "\(result.standardOutput) \(result.standardError)")
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == ["shut"])
        #expect(fixture.server.uploads().first?.complete == true)
    }
}

/// `goaway`: the connection goes away mid-batch; the streams above the last one it names are refused, the others
/// finish, and a refused upload succeeds when retried on a new connection (as URLSession and Go's net/http retry;
/// curl 7.88 fails the transfer instead, "Error in the HTTP2 framing layer").
@Suite struct GoawayTests {
    private static let fields = [("Upload-Draft-Interop-Version", "8"), ("Upload-Complete", "?1")]

    @Test(arguments: [true, false])
    func streamsAboveTheLastAreRefusedAndSucceedOnANewConnection(graceful: Bool) throws {
        let rule = try FaultRule.parse(
            #"{"name": "drain", "match": {"header": {"name": "X-Batch", "value": "2"}}, "action": "goaway", "graceful": \#(graceful)}"#
        )
        let fixture = try ProxyFixture(rules: [rule], tls: true) { $0.http2 = true }
        let client = try HTTP2Client(url: fixture.proxy.url, authority: fixture.authority)
        let body = [UInt8](repeating: 4, count: 256 << 10)
        // Stream 1 opens and sends half its body; stream 3 (X-Batch: 2) brings the GOAWAY naming it (last-stream
        // this, the default); stream 5, opened meanwhile, is above it.
        let first = try client.open(.post, "/upload", Self.fields + [("X-Batch", "1")])
        client.send(Array(body[..<(128 << 10)]), on: first)
        let second = try client.open(.post, "/upload", Self.fields + [("X-Batch", "2")])
        client.send(body, on: second, end: true)
        let third = try client.open(.post, "/upload", Self.fields + [("X-Batch", "3")])
        try client.run { $0.goaway != nil }
        // The GOAWAY names the stream it fired on, or stream 5 when that one's request had already gone to the
        // server (as it may under load): a refusal promises the server never saw the request.
        let last = try #require(client.goaway)
        #expect(last == second || last == third, "\(last)")
        client.send(Array(body[(128 << 10)...]), on: first, end: true)
        client.send(body, on: third, end: true)
        if graceful {
            // The streams up to the last one finish; the one above it is refused.
            #expect(try client.finish(first).final?.status == 200)
            #expect(try client.finish(second).final?.status == 200)
            if last == second {
                #expect(try client.finish(third).closed == .refusedStream)
            } else {
                #expect(try client.finish(third).final?.status == 200)
            }
        } else {
            // At once: the connection closes; the refused stream never had a chance either way.
            #expect(throws: (any Error).self) { try client.run { $0.streams[first]?.final != nil } }
        }
        // The refused upload, retried on a new connection, succeeds.
        let retry = try HTTP2Client(url: fixture.proxy.url, authority: fixture.authority)
        let again = try retry.open(.post, "/upload", Self.fields)
        retry.send(body, on: again, end: true)
        #expect(try retry.finish(again).final?.status == 200)
        #expect(ProxyFaultTests.fired(fixture.proxy.transcript).map(\.rule) == ["drain"])
        // Gracefully, streams 1 and 3 finished too; at once, stream 1 (half sent) never did, and stream 3, whose whole
        // body was sent with its head, may have reached the server before the connection closed.
        let complete = fixture.server.uploads().filter(\.complete).count
        let finishedOnTheFirst = last == second ? 2 : 3
        #expect(graceful ? complete == finishedOnTheFirst + 1 : (1...3).contains(complete), "\(complete)")
    }
}
