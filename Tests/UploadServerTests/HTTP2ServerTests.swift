import Foundation
import HTTP2Wire
import HTTPWire
import ResumableUpload
import TestSupport
import Testing
import UploadServer

/// The reference server over HTTP/2 (`UploadServerConfiguration.http2`): ALPN `h2` over TLS and prior knowledge over
/// cleartext, uploads side by side on one connection, 104s as HEADERS frames, a reset stream keeping what arrived;
/// and curl, a client nobody here wrote, uploading over it.
struct HTTP2ServerTests {
    private static let version = InteropVersion(rawValue: 8)!

    private static func fixture(
        _ transport: ServerFixture.Transport, http2: Bool = true,
        _ uploadProtocol: UploadProtocolConfiguration = UploadProtocolConfiguration()
    ) throws -> ServerFixture {
        try ServerFixture(uploadProtocol, transport: transport) { $0.http2 = http2 }
    }

    private static func content(_ count: Int, seed: UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 251) {
            bytes[index] = UInt8(truncatingIfNeeded: index / 251) &+ seed
        }
        return bytes
    }

    @Test(arguments: ServerFixture.Transport.allCases)
    func uploadsSideBySideOnOneConnectionComplete(_ transport: ServerFixture.Transport) throws {
        let fixture = try Self.fixture(transport)
        let client = try HTTP2Client(url: fixture.server.url, authority: fixture.authority)
        let bodies = (0..<3).map { Self.content((2 << 20) + $0 * 1000, seed: UInt8($0)) }
        var streams: [Int32] = []
        for _ in bodies {
            streams.append(try client.open(.post, "/upload", ServerFixture.creationFields(Self.version)))
        }
        // Interleaved: a quarter of each in turn.
        for quarter in 0..<4 {
            for (stream, body) in zip(streams, bodies) {
                let size = body.count / 4
                let end = quarter == 3 ? body.count : (quarter + 1) * size
                client.send(Array(body[(quarter * size)..<end]), on: stream, end: quarter == 3)
            }
            try client.run { _ in true }
        }
        var ids: [String] = []
        for stream in streams {
            let result = try client.finish(stream)
            #expect(result.reset == nil && result.closed == .noError)
            #expect(result.final.map { (200..<300).contains($0.status) } == true, "stream \(stream): \(result)")
            ids.append(ServerFixture.id(of: result.interims.first?.fields["Location"]))
        }
        #expect(Set(streams).count == 3 && streams.allSatisfy { $0 % 2 == 1 })
        for (id, body) in zip(ids, bodies) {
            let record = try #require(fixture.record(id))
            #expect(record.complete && record.durableOffset == Int64(body.count))
        }
    }

    @Test func progressResponsesAreHeadersFramesBeforeTheFinalOne() throws {
        let fixture = try Self.fixture(
            .http, UploadProtocolConfiguration(progressInterval: 1 << 20, progressLimit: nil, progressSpacing: .zero))
        let client = try HTTP2Client(url: fixture.server.url, authority: fixture.authority)
        let stream = try client.open(.post, "/upload", ServerFixture.creationFields(Self.version))
        client.send(Self.content(4 << 20, seed: 9), on: stream, end: true)
        let result = try client.finish(stream)
        #expect(result.interims.allSatisfy { $0.status == 104 && $0.version == .http2 })
        #expect(result.interims.first?.fields["Location"] != nil)
        let offsets = result.interims.compactMap { $0.fields["Upload-Offset"].flatMap { Int64($0) } }
        #expect(offsets.count >= 3 && offsets == offsets.sorted(), "\(offsets)")
        #expect(result.final?.status == 200 || result.final?.status == 201)
    }

    @Test func aResetStreamKeepsWhatArrivedAndTheUploadResumes() throws {
        let fixture = try Self.fixture(.https)
        let client = try HTTP2Client(url: fixture.server.url, authority: fixture.authority)
        let body = Self.content(3 << 20, seed: 3)
        let creation = try client.open(.post, "/upload", ServerFixture.creationFields(Self.version, complete: false))
        client.send(Array(body[..<(1 << 20)]), on: creation)
        try client.run { $0.streams[creation]?.interims.first?.fields["Location"] != nil }
        let location = try #require(client.streams[creation]?.interims.first?.fields["Location"])
        // Every byte of the first MiB written before the reset (the stream's window is 1 MiB): the server reads them
        // before it reads the RST_STREAM behind them on the connection.
        try client.run { $0.session.queuedCount(on: creation) == 0 }
        client.session.reset(creation, code: .cancel)
        let path = "/upload/" + ServerFixture.id(of: location)
        let head = try client.open(.head, path, ServerFixture.versionField(Self.version), end: true)
        let offset = try #require(client.finish(head).final?.fields["Upload-Offset"])
        #expect(offset == String(1 << 20))
        let append = try client.open(.patch, path, ServerFixture.appendFields(Self.version, offset: 1 << 20))
        client.send(Array(body[(1 << 20)...]), on: append, end: true)
        #expect(try client.finish(append).final.map { (200..<300).contains($0.status) } == true)
        let record = try #require(fixture.record(ServerFixture.id(of: location)))
        #expect(record.complete && record.durableOffset == Int64(body.count))
    }

    /// Negative control: without `http2` the server offers only HTTP/1.1, and an HTTP/2 client cannot use it.
    @Test func withoutHTTP2TheServerSpeaksOnlyHTTP11() throws {
        let secure = try Self.fixture(.https, http2: false)
        #expect(throws: HTTP2Client.Failure.self) {
            _ = try HTTP2Client(url: secure.server.url, authority: secure.authority)
        }
        let cleartext = try Self.fixture(.http, http2: false)
        let plain = try HTTP2Client(url: cleartext.server.url, authority: nil)
        _ = try plain.open(.get, "/_squall/uploads", [], end: true)
        #expect(throws: (any Error).self) { try plain.run { _ in false } }
    }

    // MARK: curl

    /// curl's own HTTP/2 (libcurl over libnghttp2), with prior knowledge and through ALPN: the creation's 104 and the
    /// final response arrive over HTTP/2, and the stored upload is whole.
    @Test(arguments: ServerFixture.Transport.allCases)
    func curlUploadsOverHTTP2(_ transport: ServerFixture.Transport) throws {
        let fixture = try Self.fixture(transport)
        let file = fixture.folder.file("upload.bin")
        let body = Self.content(3 << 20, seed: 5)
        try Data(body).write(to: URL(fileURLWithPath: file))
        var arguments = ["-sS", "-D", "-", "-o", "/dev/null", "--max-time", "20", "-w", "version=%{http_version}\n"]
        arguments +=
            transport == .https
            ? ["--http2", "--cacert", fixture.authority!.certificatePath] : ["--http2-prior-knowledge"]
        for (name, value) in ServerFixture.creationFields(Self.version) { arguments += ["-H", "\(name): \(value)"] }
        arguments += ["--data-binary", "@" + file, fixture.server.url + "/upload"]
        let result = try TLSFixtures.runTool("curl", arguments)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(lines.contains("version=2"), "\(lines)")
        #expect(lines.first == "HTTP/2 104", "\(lines)")
        let location = try #require(lines.first { $0.lowercased().hasPrefix("location:") }).dropFirst(9)
            .trimmingCharacters(in: .whitespaces)
        #expect(lines.contains { $0.hasPrefix("HTTP/2 20") })
        let record = try #require(fixture.record(ServerFixture.id(of: location)))
        #expect(record.complete && record.durableOffset == Int64(body.count))
    }

    /// Negative control for the above: without `http2`, curl's `--http2` over TLS falls back to HTTP/1.1.
    @Test func curlFallsBackToHTTP11WithoutIt() throws {
        let fixture = try Self.fixture(.https, http2: false)
        let result = try TLSFixtures.runTool(
            "curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_version}", "--http2", "--cacert",
                fixture.authority!.certificatePath, fixture.server.url + "/_squall/uploads",
            ])
        #expect(result.standardOutput == "1.1", "\(result.standardOutput) \(result.standardError)")
    }
}
