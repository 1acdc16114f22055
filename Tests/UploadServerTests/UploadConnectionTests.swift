import Dispatch
import HTTPWire
import ResumableUpload
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadServer

struct UploadConnectionTests {
    /// A HEAD while a PATCH still streams aborts the PATCH (§3.9): the HEAD reports exactly the bytes the server
    /// wrote, the PATCH's connection closes, and a new PATCH from there completes intact.
    @Test(arguments: InteropVersion.all.filter(\.sendsProgress))
    func aHeadWhileAPatchStreamsAbortsIt(version: InteropVersion) throws {
        let fixture = try ServerFixture(
            UploadProtocolConfiguration(progressInterval: 30_000, progressLimit: nil, progressSpacing: .zero))
        let data = ServerFixture.content(100_000, seed: 11)
        let setup = try fixture.client()
        let created = try setup.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: false), body: Array(data[..<10_000]))
        setup.close()
        let path = "/upload/" + ServerFixture.id(of: created.interims.first?.fields["Location"])

        let streaming = try fixture.client()
        defer { streaming.close() }
        try streaming.send(
            .patch, path, ServerFixture.appendFields(version, offset: 10_000) + [("Content-Length", "90000")])
        try streaming.send(bytes: Array(data[10_000..<40_000]))
        let progress = try streaming.readInterim()
        #expect(progress.fields["Upload-Offset"] == "40000")

        let other = try fixture.client()
        defer { other.close() }
        let head = try other.request(.head, path, ServerFixture.versionField(version))
        #expect(head["Upload-Offset"] == "40000")
        #expect(streaming.serverClosed())

        let patch = try other.request(
            .patch, path, ServerFixture.appendFields(version, offset: 40_000), body: Array(data[40_000...]))
        #expect(patch.status == (version.rawValue <= 6 ? 201 : 200))
        let record = try #require(fixture.record(ServerFixture.id(of: path)))
        #expect(record.sha256 == ServerFixture.sha256(data))
    }

    @Test func twentyConcurrentUploadsAllArriveIntact() throws {
        let fixture = try ServerFixture()
        let version = InteropVersion(rawValue: 8)!
        let results = Mutex<[String: String]>([:])
        let failures = Mutex<[String]>([])
        let server = fixture.server
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            let data = ServerFixture.content(40_000 + index * 1000, seed: UInt64(index))
            do {
                let client = try RawHTTPClient(server)
                defer { client.close() }
                let exchange = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: data)
                let id = exchange["x-server-resource-id"] ?? "missing"
                results.withLock { $0[id] = ServerFixture.sha256(data) }
            } catch {
                failures.withLock { $0.append("\(index): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let expected = results.withLock { $0 }
        #expect(expected.count == 20)
        for (id, digest) in expected {
            #expect(fixture.record(id)?.sha256 == digest)
        }
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        (
            "PATCH /upload/x HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 8\r\nUpload-Offset: -5\r\n"
                + "Upload-Complete: ?1\r\nContent-Type: application/partial-upload\r\nContent-Length: 0\r\n\r\n", 400
        ),
        (
            "PATCH /upload/x HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 8\r\n"
                + "Upload-Offset: 123456789012345678901\r\nUpload-Complete: ?1\r\n"
                + "Content-Type: application/partial-upload\r\nContent-Length: 0\r\n\r\n", 400
        ),
        ("POST /upload HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 8\r\nUpload-Complete: maybe\r\n\r\n", 400),
        ("GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "b", count: 10_000) + "\r\n\r\n", 431),
        ("GET /" + String(repeating: "p", count: 10_000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    ])
    func malformedInputGetsItsStatusAndTheServerGoesOn(request: String, status: Int) throws {
        let fixture = try ServerFixture()
        let bad = try fixture.client()
        defer { bad.close() }
        try bad.send(bytes: Array(request.utf8))
        bad.expectAnyResponse()
        let response = try bad.readResponse()
        #expect(response.status == status)

        let good = try fixture.client()
        defer { good.close() }
        let options = try good.request(.options, "/upload", [(InteropVersion.fieldName, "8")])
        #expect(options.status == 200)
    }

    /// A client that waits for `100 Continue` gets it after the 104, before it sends the body.
    @Test func expectContinueGetsA100BeforeTheBodyIsRead() throws {
        let fixture = try ServerFixture()
        let version = InteropVersion(rawValue: 7)!
        let data = ServerFixture.content(5000)
        let client = try fixture.client()
        defer { client.close() }
        try client.send(
            .post, "/upload",
            ServerFixture.creationFields(version) + [("Content-Length", "5000"), ("Expect", "100-continue")])
        #expect(try client.readInterim().status == 104)
        #expect(try client.readInterim().status == 100)
        try client.send(bytes: data)
        let exchange = try client.readResponse()
        #expect(exchange.status == 200)
        #expect(fixture.record(exchange["x-server-resource-id"] ?? "")?.sha256 == ServerFixture.sha256(data))

        let plain = try client.request(.put, "/files/a", [("Expect", "100-continue")], body: [1, 2, 3])
        #expect(plain.interims.map(\.status) == [100])
        #expect(plain.status == 201)
    }

    /// Pipelined requests are answered in order on one connection; `Connection: close` ends it after its response.
    @Test func pipelinedRequestsAreAnsweredInOrderUntilClose() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let requests =
            "OPTIONS /upload HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 8\r\n\r\n"
            + "PUT /plain HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
            + "GET /_squall/uploads HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        try client.send(bytes: Array(requests.utf8))
        for _ in 0..<3 { client.expectAnyResponse() }
        #expect(try client.readResponse().status == 200)
        let put = try client.readResponse()
        #expect(put.status == 201)
        let listing = try client.readResponse()
        #expect(listing.status == 200)
        #expect(listing["Connection"] == "close")
        #expect(String(decoding: listing.body, as: UTF8.self).contains(put["x-server-resource-id"] ?? "missing"))
        #expect(client.serverClosed())
    }

    /// A creation whose head and body arrive in small random pieces (or one byte at a time) is read the same.
    @Test(arguments: [0, 1, 2, 3] as [UInt64])
    func aCreationSplitIntoPiecesArrivesIntact(seed: UInt64) throws {
        let fixture = try ServerFixture()
        let data = ServerFixture.content(2000, seed: seed)
        let head =
            "POST /upload HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 8\r\nUpload-Complete: ?1\r\n"
            + "Content-Length: 2000\r\n\r\n"
        let bytes = Array(head.utf8) + data
        let pieces = seed == 0 ? ByteSplits.oneByteAtATime(bytes) : ByteSplits.random(bytes, seed: seed, maxChunk: 100)
        let client = try fixture.client()
        defer { client.close() }
        for piece in pieces { try client.send(bytes: piece) }
        client.expectAnyResponse()
        let exchange = try client.readResponse()
        #expect(exchange.interims.count == 1)
        #expect(exchange.status == 200)
        #expect(fixture.record(exchange["x-server-resource-id"] ?? "")?.sha256 == ServerFixture.sha256(data))
    }

    @Test func aHeadThatTricklesInGets408() throws {
        let fixture = try ServerFixture { $0.limits.headTimeout = .milliseconds(200) }
        let client = try fixture.client()
        defer { client.close() }
        try client.send(bytes: Array("POST /upload HTTP/1.1\r\nHost: a\r\n".utf8))
        client.expectAnyResponse()
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == "squall server: the request head did not arrive whole within 200ms (--head-timeout)\n")
        #expect(client.serverClosed())
    }

    /// A body that goes silent for the idle timeout counts as interrupted: its bytes stay, synced, and the
    /// upload resumes from them.
    @Test func aStalledBodyIsInterruptedAndKeepsItsBytes() throws {
        let fixture = try ServerFixture { $0.limits.idleTimeout = .milliseconds(300) }
        let version = InteropVersion(rawValue: 6)!
        let client = try fixture.client()
        defer { client.close() }
        try client.send(.post, "/upload", ServerFixture.creationFields(version) + [("Content-Length", "9000")])
        let location = try client.readInterim().fields["Location"]
        try client.send(bytes: ServerFixture.content(3000))
        #expect(client.serverClosed())

        let record = try #require(fixture.record(ServerFixture.id(of: location)))
        #expect(record.durableOffset == 3000)
        let again = try fixture.client()
        defer { again.close() }
        let head = try again.request(.head, "/upload/" + record.id, ServerFixture.versionField(version))
        #expect(head["Upload-Offset"] == "3000")
        #expect(head["Upload-Length"] == "9000")
    }

    /// A chunked creation whose framing breaks half-way: 400, the connection closes, the chunks before stay.
    @Test(arguments: [false, true])
    func aMalformedChunkGets400AndKeepsTheBytesBefore(resumable: Bool) throws {
        let fixture = try ServerFixture()
        let version = InteropVersion(rawValue: 8)!
        let client = try fixture.client()
        defer { client.close() }
        let fields = resumable ? ServerFixture.creationFields(version) : []
        try client.send(.post, "/upload", fields + [("Transfer-Encoding", "chunked")])
        let location = resumable ? try client.readInterim().fields["Location"] : nil
        try client.send(bytes: Array("5\r\nhello\r\n4\r\nmore\r\nzz\r\n".utf8))
        let answer = try client.readResponse()
        #expect(answer.status == 400)
        #expect(answer["Connection"] == "close")
        #expect(client.serverClosed())

        let record = try #require(
            resumable ? fixture.record(ServerFixture.id(of: location)) : fixture.server.uploads().first)
        #expect(record.durableOffset == 9)
        #expect(!record.complete)
    }

    @Test func stopKeepsTheBytesOfAStreamingUpload() throws {
        let fixture = try ServerFixture(
            UploadProtocolConfiguration(progressInterval: 25_000, progressLimit: nil, progressSpacing: .zero))
        let version = InteropVersion(rawValue: 8)!
        let client = try fixture.client()
        defer { client.close() }
        try client.send(.post, "/upload", ServerFixture.creationFields(version) + [("Content-Length", "100000")])
        let location = try client.readInterim().fields["Location"]
        try client.send(bytes: ServerFixture.content(25_000))
        #expect(try client.readInterim().fields["Upload-Offset"] == "25000")

        fixture.server.stop()
        let record = try #require(fixture.record(ServerFixture.id(of: location)))
        #expect(record.durableOffset == 25_000)
        #expect(!record.complete)
        #expect(client.serverClosed())
    }

    @Test func uploadsOverHTTPS() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: folder)
        let fixture = try ServerFixture { $0.certificateAuthorityDirectory = authority.directory }
        #expect(fixture.server.url.hasPrefix("https://127.0.0.1:"))
        let client = try RawHTTPClient(fixture.server, tls: try TLSFixtures.clientContext(authority: authority))
        defer { client.close() }
        let data = ServerFixture.content(70_000, seed: 5)
        let version = InteropVersion(rawValue: 8)!
        let exchange = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: data)
        #expect(exchange.interims.first?.status == 104)
        #expect(exchange.status == 200)
        let id = try #require(exchange["x-server-resource-id"])
        #expect(fixture.record(id)?.sha256 == ServerFixture.sha256(data))
    }
}

/// What the server answers a request it cannot take: the status the wire error calls for, and a line saying why.
struct RefusalTests {
    /// Transfer codings other than exactly chunked are refused with 501, never stored coded; a malformed head gets
    /// 400 with its reason; a PATCH without `application/partial-upload` gets 415 saying which media type to send.
    @Test(arguments: [
        (
            "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 501,
            "a request's transfer coding must be exactly chunked"
        ),
        ("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\n", 400, "malformed request: "),
        (
            "PATCH /upload/0123456789abcdef0123456789abcdef HTTP/1.1\r\nHost: a\r\nUpload-Draft-Interop-Version: 6\r\n"
                + "Upload-Offset: 0\r\nUpload-Complete: ?1\r\nContent-Length: 0\r\n\r\n", 415,
            "an append must have Content-Type application/partial-upload"
        ),
    ])
    func aRefusalSaysWhy(request: String, status: Int, reason: String) throws {
        let fixture = try ServerFixture(UploadProtocolConfiguration())
        let client = try fixture.client()
        defer { client.close() }
        try client.send(bytes: Array(request.utf8))
        let answer = try client.readResponse()
        #expect(answer.status == status)
        #expect(answer["Content-Type"] == "text/plain; charset=utf-8")
        #expect(
            String(decoding: answer.body, as: UTF8.self).contains(reason),
            "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(fixture.server.uploads().isEmpty, "nothing stored")
    }
}
