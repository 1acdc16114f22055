import HTTPWire
import ResumableUpload
import Testing

/// What a request or response head tells an intermediary about the upload, per interop version.
struct UploadHeadFactsTests {
    static func request(_ method: HTTPMethod, _ fields: HTTPFields, target: String = "/upload/7") -> UploadRequestFacts
    {
        UploadRequestFacts(RequestHead(method: method, target: target, fields: fields))
    }

    @Test func startsAndLengthsByMethod() {
        #expect(Self.request(.patch, ["Upload-Offset": "10", "Upload-Length": "100"]).start == 10)
        #expect(Self.request(.patch, ["Upload-Offset": "10", "Upload-Length": "100"]).length == 100)
        #expect(
            Self.request(.patch, ["Upload-Offset": "10", "Upload-Complete": "?1", "Content-Length": "5"]).length == 15)
        #expect(Self.request(.post, ["Upload-Complete": "?0", "Content-Length": "5"]).start == 0)
        #expect(Self.request(.post, ["Upload-Complete": "?0", "Content-Length": "5"]).length == nil)
        #expect(Self.request(.post, ["Content-Length": "7"]).length == 7)
        #expect(Self.request(.get, ["Content-Length": "7"]).start == nil)
        #expect(Self.request(.get, ["Content-Length": "7"]).length == nil)
        #expect(Self.request(.patch, ["Upload-Offset": "-1"]).start == nil)
        #expect(Self.request(.patch, ["Upload-Offset": "3"], target: "https://h:1/upload/7?x=1").path == "/upload/7")
    }

    @Test func theFieldsMeanWhatTheVersionSays() {
        // Interop 3: Upload-Incomplete is inverted, and Upload-Length does not exist yet.
        let v3 = Self.request(
            .post, ["Upload-Draft-Interop-Version": "3", "Upload-Incomplete": "?0", "Content-Length": "9"])
        #expect(v3.version?.rawValue == 3)
        #expect(v3.length == 9)
        let v3Partial = Self.request(
            .post,
            [
                "Upload-Draft-Interop-Version": "3", "Upload-Incomplete": "?1", "Upload-Length": "90",
                "Content-Length": "9",
            ])
        #expect(v3Partial.length == nil)
        // Interop 6: a PATCH without a completion field is the last part; interop 7 requires the field.
        let v6 = ["Upload-Draft-Interop-Version": "6", "Upload-Offset": "10", "Content-Length": "5"] as HTTPFields
        #expect(Self.request(.patch, v6).length == 15)
        let v7 = ["Upload-Draft-Interop-Version": "7", "Upload-Offset": "10", "Content-Length": "5"] as HTTPFields
        #expect(Self.request(.patch, v7).length == nil)
        // A chunked body has no Content-Length to go by.
        let chunked = Self.request(
            .post, ["Upload-Draft-Interop-Version": "6", "Upload-Complete": "?1", "Transfer-Encoding": "chunked"])
        #expect(chunked.length == nil)
    }

    @Test func responsesAnnounceResourcesAndLengths() {
        let announce = ResponseHead(
            status: 104, reason: "Upload Resumption Supported", fields: ["Location": "https://h:8443/upload/7"])
        #expect(UploadResponseFacts(announce, requestVersion: nil).resourcePath == "/upload/7")
        let answer = ResponseHead(
            status: 204, reason: "No Content",
            fields: ["Upload-Draft-Interop-Version": "8", "Upload-Offset": "5", "Upload-Length": "100"])
        #expect(
            UploadResponseFacts(answer, requestVersion: nil)
                == UploadResponseFacts(resourcePath: nil, length: 100, offset: 5))
        let malformed = ResponseHead(status: 204, reason: "No Content", fields: ["Upload-Offset": "-1"])
        #expect(UploadResponseFacts(malformed, requestVersion: nil).offset == nil)
        let old = ResponseHead(status: 204, reason: "No Content", fields: ["Upload-Length": "100"])
        #expect(UploadResponseFacts(old, requestVersion: InteropVersion(rawValue: 5)).length == nil)
        let refused = ResponseHead(status: 404, reason: "Not Found", fields: ["Location": "/elsewhere"])
        #expect(UploadResponseFacts(refused, requestVersion: nil).resourcePath == nil)
    }

    @Test func responsesStateCompletionInTheirVersionsField() {
        let complete = ResponseHead(status: 204, reason: "No Content", fields: ["Upload-Complete": "?1"])
        #expect(UploadResponseFacts(complete, requestVersion: nil).complete == true)
        let version3 = ResponseHead(
            status: 204, reason: "No Content",
            fields: ["Upload-Draft-Interop-Version": "3", "Upload-Incomplete": "?1", "Upload-Complete": "?1"])
        #expect(UploadResponseFacts(version3, requestVersion: nil).complete == false, "interop 3 reads Incomplete")
        let malformed = ResponseHead(status: 204, reason: "No Content", fields: ["Upload-Complete": "1"])
        #expect(UploadResponseFacts(malformed, requestVersion: nil).complete == nil)
    }
}
