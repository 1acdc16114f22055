import HTTPWire
import ResumableUpload
import SquallNet
import TestSupport
import Testing

/// The reference server serving `final` (`--interop 3-10,final`): a creation without the version field is resumable
/// and answered as the newest draft answers, with no version field; the default server serves the same request as a
/// plain upload (the control). An HTTP/1.0 request never gets an informational response (RFC 9110 §15.2).
@Suite struct UnversionedServerTests {
    static func fixture(final: Bool) throws -> ServerFixture {
        var rules = UploadProtocolConfiguration()
        if final { rules.versions.insert(.final) }
        return try ServerFixture(rules)
    }

    @Test func aBareCreationIsResumableOnlyWhereFinalIsServed() throws {
        let body = ServerFixture.content(3000)
        let serving = try Self.fixture(final: true)
        let client = try serving.client()
        defer { client.close() }
        let created = try client.request(.post, "/upload", [("Upload-Complete", "?0")], body: Array(body.prefix(1000)))
        let announcement = try #require(created.interims.first)
        #expect(announcement.status == 104 && announcement.fields["Upload-Draft-Interop-Version"] == nil)
        let location = try #require(created["Location"])
        #expect(created.status == 201 && created["Upload-Draft-Interop-Version"] == nil)
        #expect(created["Upload-Complete"] == "?0" && created["Upload-Offset"] == "1000")
        let viaGet = try client.request(.get, location)
        #expect(viaGet["Upload-Offset"] == "1000")
        let appended = try client.request(
            .patch, location,
            [("Upload-Offset", "1000"), ("Upload-Complete", "?1"), ("Content-Type", "application/partial-upload")],
            body: Array(body.dropFirst(1000)))
        #expect(appended.status / 100 == 2 && appended["Upload-Draft-Interop-Version"] == nil)
        #expect(serving.record(ServerFixture.id(of: location))?.sha256 == ServerFixture.sha256(body))

        let plain = try Self.fixture(final: false)
        let other = try plain.client()
        defer { other.close() }
        let served = try other.request(.post, "/upload", [("Upload-Complete", "?0")], body: Array(body.prefix(1000)))
        #expect(served.interims.isEmpty && served["Location"] == nil)
    }

    @Test func anHTTP10CreationGetsNoInformationalResponse() throws {
        let fixture = try Self.fixture(final: false)
        let address = try SocketAddress(parsing: String(fixture.server.url.split(separator: "/").last!))
        let stream = PlainStream(socket: try TCPConnector.connect(to: address))
        defer { stream.close() }
        let request =
            "POST /upload HTTP/1.0\r\nHost: x\r\nUpload-Draft-Interop-Version: 10\r\nUpload-Complete: ?1\r\n"
            + "Content-Length: 3\r\n\r\nabc"
        try stream.writeAll(Array(request.utf8), deadline: .now + .seconds(10))
        let answer = String(
            decoding: try stream.readToEnd(limit: 64 * 1024, deadline: .now + .seconds(10)), as: UTF8.self)
        #expect(!answer.contains(" 104 "))
        #expect(answer.hasPrefix("HTTP/1.1 20"))
        #expect(answer.contains("Location: "))
    }
}
