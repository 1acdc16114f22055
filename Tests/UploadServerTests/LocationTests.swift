import ResumableUpload
import SquallNet
import TestSupport
import Testing
import UploadServer

/// `Location` names the upload as the client reached the server: through `Host`, or a proxy's `Forwarded`.
struct LocationTests {
    static func location(_ fields: [(String, String)], host: String? = nil) throws -> String? {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        var extra = fields
        if let host { extra.append(("Host", host)) }
        let answer = try client.request(
            .post, "/upload", ServerFixture.creationFields(InteropVersion(rawValue: 8)!) + extra, body: [1])
        return answer.interims.first?.fields["Location"]
    }

    @Test func theHostFieldNamesTheServer() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let answer = try client.request(
            .post, "/upload", ServerFixture.creationFields(InteropVersion(rawValue: 8)!), body: [1])
        let location = try #require(answer.interims.first?.fields["Location"])
        #expect(location.hasPrefix(fixture.server.url + "/upload/"))
    }

    @Test(arguments: [
        ("for=192.0.2.1;proto=https;host=proxy.test:8443", "https://proxy.test:8443/upload/"),
        (#"proto="https";host="127.0.0.1:9""#, "https://127.0.0.1:9/upload/"),
        ("host=a.test, host=b.test", "http://a.test/upload/"),
        ("proto=gopher;host=c.test", "http://c.test/upload/"),
        ("host=\"evil/path\"", nil),
    ])
    func aForwardedFieldNamesTheProxy(forwarded: String, prefix: String?) throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        let answer = try client.request(
            .post, "/upload", ServerFixture.creationFields(InteropVersion(rawValue: 8)!) + [("Forwarded", forwarded)],
            body: [1])
        let location = try #require(answer.interims.first?.fields["Location"])
        #expect(location.hasPrefix(prefix ?? fixture.server.url + "/upload/"), "\(location)")
    }

    @Test func aWildcardListenAddressAnnouncesLoopback() throws {
        let fixture = try ServerFixture { $0.listenAddress = try! SocketAddress(host: "0.0.0.0", port: 0) }
        #expect(fixture.server.url.hasPrefix("http://127.0.0.1:"))
        let client = try fixture.client()
        defer { client.close() }
        #expect(
            try client.request(.options, "/upload", ServerFixture.versionField(InteropVersion(rawValue: 8)!)).status
                == 200)
    }
}
