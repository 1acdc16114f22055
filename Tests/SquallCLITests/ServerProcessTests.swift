import Foundation
import Glibc
import TLSKit
import TestSupport
import Testing

/// The built `squall server` as a separate process: killed with SIGKILL mid-upload and restarted on the same store
/// (no reported byte lost, the upload resumes byte-exact), stopped by SIGTERM or SIGINT mid-upload (status 143, 130,
/// bytes kept), and spoken to by curl as a client we did not write.
struct ServerProcessTests {
    static let interop8 = [("Upload-Draft-Interop-Version", "8")]
    /// The upload of the kill tests: 4 MiB of a seeded pattern, and its SHA-256.
    static let total: Int64 = 4 << 20
    static let pattern = BytePattern(seed: 0x5EED)
    /// Where the kill tests cut: bytes sent before the kill, and the offset a progress 104 must have reported
    /// (the first: right after the 104 with Location, before any body byte).
    static let cuts: [(sent: Int64, awaited: Int64)] = [
        (0, 0), (600_001, 256 * 1024), (1_572_864, 1 << 20), (total - 1, 3 << 20),
    ]
    static let digest: String = {
        let digest = MessageDigest(.sha256)
        var offset: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while offset < total {
            chunk.withUnsafeMutableBytes { pattern.fill($0, offset: offset) }
            digest.update(chunk)
            offset += Int64(chunk.count)
        }
        return MessageDigest.hexString(digest.finalize())
    }()

    /// One upload as `GET /_squall/uploads` lists it (the fields these tests read).
    struct ListedUpload: Decodable {
        var id: String
        var offset: Int64
        var complete: Bool
        var sha256: String?
    }

    /// Starts a 4 MiB interop-8 creation, sends `sent` bytes of it and reads 104s until one reports an offset
    /// of at least `awaited`; returns the upload's path and the last offset reported.
    func startUpload(
        on server: ServerProcess, sending sent: Int64, awaiting awaited: Int64
    ) throws -> (connection: RawHTTPConnection, path: String, reported: Int64) {
        let connection = try RawHTTPConnection(server.authority)
        try connection.sendHead(
            "POST", "/upload",
            Self.interop8 + [("Upload-Complete", "?1"), ("Content-Length", "\(Self.total)")])
        let announced = try connection.readHead()
        try #require(announced.status == 104)
        let location = try #require(announced["Location"])
        try #require(location.hasPrefix(server.url + "/upload/"))
        try connection.send(Self.pattern, 0..<sent)
        var reported: Int64 = 0
        while reported < awaited {
            let progress = try connection.readHead()
            try #require(progress.status == 104)
            #expect(progress["Location"] == nil)
            let offset = try #require(progress["Upload-Offset"].flatMap { Int64($0) })
            #expect(offset > reported && offset <= sent)
            reported = offset
        }
        return (connection, String(location.dropFirst(server.url.count)), reported)
    }

    /// HEAD of `path` (interop 8): the offset, which must be within what was reported and what was sent.
    func resumableOffset(of path: String, on server: ServerProcess, within range: ClosedRange<Int64>) throws -> Int64 {
        let connection = try RawHTTPConnection(server.authority)
        let head = try connection.request("HEAD", path, Self.interop8).final
        #expect([200, 204].contains(head.status))
        #expect(head["Upload-Complete"] == "?0")
        #expect(head["Cache-Control"] == "no-store")
        let offset = try #require(head["Upload-Offset"].flatMap { Int64($0) })
        #expect(range.contains(offset), "HEAD reported \(offset), outside \(range)")
        return offset
    }

    /// PATCHes the rest of the pattern from `offset`, then checks the listing: complete, 4 MiB, the right digest.
    func finish(_ path: String, from offset: Int64, on server: ServerProcess) throws {
        let connection = try RawHTTPConnection(server.authority)
        try connection.sendHead(
            "PATCH", path,
            Self.interop8 + [
                ("Content-Type", "application/partial-upload"), ("Upload-Offset", "\(offset)"),
                ("Upload-Complete", "?1"), ("Content-Length", "\(Self.total - offset)"),
            ])
        try connection.send(Self.pattern, offset..<Self.total)
        let patch = try connection.readResponse()
        #expect(patch.final.status == 200)
        #expect(patch.final["Upload-Complete"] == "?1")
        #expect(patch.interims.allSatisfy { $0.status == 104 && $0["Location"] == nil })

        let listing = try connection.request("GET", "/_squall/uploads").final
        #expect(listing.status == 200)
        let uploads = try JSONDecoder().decode([ListedUpload].self, from: Data(listing.body))
        let id = String(path.split(separator: "/").last ?? "")
        #expect(uploads.map(\.id) == [id])
        let upload = try #require(uploads.first)
        #expect(upload.complete)
        #expect(upload.offset == Self.total)
        #expect(upload.sha256 == Self.digest)
    }

    /// kill -9 once the server has reported `awaited` bytes of the `sent` it got; a new server on the same store
    /// reports at least what was reported (durable before reported) and the PATCH of the rest completes exactly.
    /// The server announces a creation before its store has it (a crash in between loses the upload: a HEAD then
    /// gets 404, and the client starts over), so the kill right after the 104 comes once a HEAD on another
    /// connection was answered: that answer waits until the store has the upload.
    @Test(arguments: ServerProcessTests.cuts)
    func killNineMidUploadThenRestartAndResumeByteExact(sent: Int64, awaited: Int64) throws {
        let store = try TLSFixtures.TemporaryDirectory()
        let first = try ServerProcess(store: store.path)
        let (connection, path, reported) = try startUpload(on: first, sending: sent, awaiting: awaited)
        if awaited == 0 { _ = try resumableOffset(of: path, on: first, within: 0...sent) }
        let (reason, status) = first.stop(with: SIGKILL)
        #expect(reason == .uncaughtSignal && status == SIGKILL)
        connection.stream.close()

        let second = try ServerProcess(store: store.path)
        let offset = try resumableOffset(of: path, on: second, within: reported...sent)
        try finish(path, from: offset, on: second)
        let ended = second.stop(with: SIGTERM)
        #expect(ended.reason == .exit && ended.status == 143)
    }

    /// SIGTERM or SIGINT while a body streams: the server exits with status 143 or 130, closes the upload's
    /// connection, and the bytes it reported stay resumable after a restart (its `--store` is kept).
    @Test(arguments: [SIGTERM, SIGINT])
    func signalMidUploadExitsZeroAndKeepsTheBytes(signal: Int32) throws {
        let store = try TLSFixtures.TemporaryDirectory()
        let first = try ServerProcess(store: store.path)
        let sent: Int64 = 300_000
        let (connection, path, reported) = try startUpload(on: first, sending: sent, awaiting: 128 * 1024)
        let ended = first.stop(with: signal)
        #expect(ended.reason == .exit && ended.status == 128 + signal)
        let rest = try connection.readHeadsUntilClosed()
        #expect(rest.allSatisfy { $0.status == 104 && $0["Upload-Offset"] != nil }, "\(rest.map(\.fields))")

        let second = try ServerProcess(store: store.path)
        let offset = try resumableOffset(of: path, on: second, within: reported...sent)
        try finish(path, from: offset, on: second)
    }

    /// Runs `/usr/bin/curl` with `arguments`, ignoring any curlrc or proxy; returns its stdout and stderr lines.
    func curl(_ arguments: [String]) throws -> (status: Int32, output: [String], verbose: [String]) {
        let result = try TLSFixtures.runTool(
            "/usr/bin/curl", ["-q", "-sS", "--noproxy", "*", "--max-time", "10"] + arguments)
        let lines = { (text: String) in
            text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return (result.status, lines(result.standardOutput), lines(result.standardError))
    }

    /// A creation by curl with interop 6: `curl -v` shows the 104 and its Location before the final 201, and
    /// `curl -I` on that Location reports the whole file received and the upload complete.
    @Test(.enabled(if: ServerProcessTests.hasCurl, "needs /usr/bin/curl (Tools/setup.sh installs it)"))
    func curlSeesThe104WithLocationBeforeThe201() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let content = BytePattern(seed: 6).bytes(300_000)
        let file = folder.file("content")
        try Data(content).write(to: URL(fileURLWithPath: file))
        let server = try ServerProcess(store: folder.file("store"))
        let created = try curl([
            "-v", "-H", "Upload-Draft-Interop-Version: 6", "-H", "Upload-Complete: ?1", "--data-binary", "@" + file,
            server.url + "/upload",
        ])
        #expect(created.status == 0)
        let announced = try #require(created.verbose.firstIndex { $0.hasPrefix("< HTTP/1.1 104 ") })
        let final = try #require(created.verbose.firstIndex { $0.hasPrefix("< HTTP/1.1 201 ") })
        let prefix = "< Location: \(server.url)/upload/"
        let location = try #require(created.verbose[announced..<final].first { $0.hasPrefix(prefix) })
        let id = location.dropFirst(prefix.count)
        #expect(id.count >= 32 && id.allSatisfy(\.isHexDigit), "id '\(id)'")
        #expect(created.verbose[final...].contains("< x-server-resource-id: \(id)"))

        let url = String(location.dropFirst("< Location: ".count))
        let head = try curl(["-I", "-H", "Upload-Draft-Interop-Version: 6", url])
        #expect(head.status == 0)
        #expect(["HTTP/1.1 200 OK", "HTTP/1.1 204 No Content"].contains(head.output.first ?? ""))
        #expect(head.output.contains("Upload-Offset: 300000"))
        #expect(head.output.contains("Upload-Complete: ?1"))
        #expect(!head.output.contains("Upload-Complete: ?0"))
        let listing = try RawHTTPConnection(server.authority).request("GET", "/_squall/uploads").final
        let uploads = try JSONDecoder().decode([ListedUpload].self, from: Data(listing.body))
        #expect(uploads.count == 1)
        let upload = uploads.first
        #expect(upload?.complete == true)
        #expect(upload?.id == String(id))
        #expect(upload?.sha256 == MessageDigest.hex(of: content))
    }

    /// Control: without an interop version (or with one the server does not know) curl gets a plain upload, a
    /// 201 with no 104 before it.
    @Test(
        .enabled(if: ServerProcessTests.hasCurl, "needs /usr/bin/curl (Tools/setup.sh installs it)"),
        arguments: [[], ["-H", "Upload-Draft-Interop-Version: 11"]])
    func curlWithoutAKnownInteropVersionGetsAPlainUpload(version: [String]) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try ServerProcess(store: folder.file("store"))
        let created = try curl(
            ["-v", "-H", "Upload-Complete: ?1", "--data-binary", "plain body", server.url + "/upload"] + version)
        #expect(created.status == 0)
        #expect(!created.verbose.contains { $0.hasPrefix("< HTTP/1.1 104") })
        #expect(!created.verbose.contains { $0.hasPrefix("< Location:") })
        #expect(created.verbose.contains { $0.hasPrefix("< HTTP/1.1 201 ") })
        #expect(created.verbose.contains { $0.hasPrefix("< x-server-resource-id: ") })
    }

    static var hasCurl: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
    }
}
