import Testing
import UploadClient

struct HTTPURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/upload", false, "127.0.0.1", UInt16(8080), "/upload"),
        ("https://example.com/a/b?x=1", true, "example.com", 443, "/a/b?x=1"),
        ("HTTP://example.com", false, "example.com", 80, "/"),
        ("http://example.com?q", false, "example.com", 80, "/?q"),
        ("https://[::1]:8443/u", true, "[::1]", 8443, "/u"),
    ])
    func parsesAbsoluteURLs(text: String, secure: Bool, host: String, port: UInt16, target: String) throws {
        let url = try HTTPURL(text)
        #expect(url.endpoint == HTTPEndpoint(secure: secure, host: host, port: port))
        #expect(url.target == target)
    }

    @Test(arguments: [
        "ftp://example.com/", "example.com/upload", "http:///upload", "http://u@example.com/", "http://h:0/",
        "http://h:99999/", "http://h:x/",
    ])
    func rejectsOtherURLs(text: String) {
        #expect(throws: TransferError.self) { try HTTPURL(text) }
        #expect((try? HTTPURL(text)) == nil)
    }

    @Test func resolvesPathsAndAbsoluteLocations() throws {
        let url = try HTTPURL("https://example.com:8443/upload")
        #expect(try url.resolving("/upload/abc").description == "https://example.com:8443/upload/abc")
        #expect(try url.resolving("http://other:81/x").description == "http://other:81/x")
        #expect(throws: TransferError.self) { try url.resolving("relative/path") }
    }

    @Test func theHostFieldOmitsTheDefaultPort() {
        #expect(HTTPEndpoint(secure: true, host: "h", port: 443).authority == "h")
        #expect(HTTPEndpoint(secure: false, host: "h", port: 443).authority == "h:443")
        #expect(HTTPEndpoint(secure: false, host: "h", port: 80).description == "http://h")
    }
}
