import HTTPWire
import ResumableUpload
import Testing

struct UploadRequestTests {
    static let configuration = UploadProtocolConfiguration()

    /// A request head carrying `version`'s interop field plus `fields`.
    static func head(
        _ method: HTTPMethod, _ target: String, _ version: InteropVersion?, _ fields: [(String, String)] = []
    ) -> RequestHead {
        var head = RequestHead(method: method, target: target, fields: ["Host": "example.com"])
        if let version { head.fields.append(name: "Upload-Draft-Interop-Version", value: String(version.rawValue)) }
        for (name, value) in fields { head.fields.append(name: name, value: value) }
        return head
    }

    static func classify(_ head: RequestHead, _ configuration: UploadProtocolConfiguration = configuration) throws
        -> UploadRequest
    {
        try UploadRequest.classify(head, configuration: configuration)
    }

    /// The completion field saying "complete" (`complete`) or "more follows" in `version`'s spelling.
    static func completion(_ version: InteropVersion, _ complete: Bool) -> (String, String) {
        (version.completionFieldName, version.completionValue(complete: complete))
    }

    @Test(arguments: InteropVersion.all)
    func creationPerVersion(_ version: InteropVersion) throws {
        var fields = [Self.completion(version, true), ("Content-Length", "10"), ("Idempotency-Key", "\"k1\"")]
        if version.supportsUploadLength { fields.append(("Upload-Length", "10")) }
        let request = try Self.classify(Self.head(.post, "/upload", version, fields))
        let expected = CreationRequest(
            version: version, complete: true, contentLength: 10, uploadLength: version.supportsUploadLength ? 10 : nil,
            idempotencyKey: "k1")
        #expect(request == .create(expected))
        #expect(expected.declaredLength == 10)
    }

    @Test(arguments: InteropVersion.all)
    func partialCreationAndPut(_ version: InteropVersion) throws {
        let request = try Self.classify(Self.head(.put, "/upload?x=1", version, [Self.completion(version, false)]))
        #expect(request == .create(CreationRequest(version: version, complete: false)))
    }

    @Test(arguments: [nil, "2", "11", "abc", "\"8\""] as [String?])
    func unknownOrMissingVersionIsPlain(_ value: String?) throws {
        var head = RequestHead(
            method: .post, target: "/upload", fields: ["Upload-Complete": "?1", "Upload-Offset": "x"])
        if let value { head.fields.append(name: "Upload-Draft-Interop-Version", value: value) }
        #expect(try Self.classify(head) == .plainUpload)
        head.method = .patch
        head.target = "/upload/abc"
        #expect(try Self.classify(head) == .plainUpload)
    }

    @Test(arguments: InteropVersion.all)
    func creationWithoutCompletionFieldIsPlain(_ version: InteropVersion) throws {
        #expect(try Self.classify(Self.head(.post, "/upload", version, [("Content-Length", "3")])) == .plainUpload)
        #expect(
            try Self.classify(Self.head(.post, "/other", version, [Self.completion(version, true)])) == .plainUpload)
        #expect(
            try Self.classify(Self.head(.get, "/upload", version, [Self.completion(version, true)])) == .plainUpload)
    }

    @Test func versionsOutsideTheConfigurationArePlain() throws {
        let five = try #require(InteropVersion(rawValue: 5))
        let configuration = UploadProtocolConfiguration(versions: [try #require(InteropVersion(rawValue: 8))])
        let head = Self.head(.post, "/upload", five, [Self.completion(five, true)])
        #expect(try Self.classify(head, configuration) == .plainUpload)
    }

    @Test(arguments: InteropVersion.all)
    func optionsEvenWhenResumabilityIsOff(_ version: InteropVersion) throws {
        let off = UploadProtocolConfiguration(resumable: false)
        #expect(try Self.classify(Self.head(.options, "/upload", version)) == .options(version))
        #expect(try Self.classify(Self.head(.options, "*", version), off) == .options(version))
        #expect(try Self.classify(Self.head(.options, "/elsewhere", version)) == .plainUpload)
        #expect(try Self.classify(Self.head(.options, "/upload", nil)) == .plainUpload)
        let creation = Self.head(.post, "/upload", version, [Self.completion(version, true)])
        #expect(try Self.classify(creation, off) == .plainUpload)
    }

    @Test(arguments: InteropVersion.all)
    func resourceRequests(_ version: InteropVersion) throws {
        #expect(try Self.classify(Self.head(.head, "/upload/a1", version)) == .offset(id: "a1", version: version))
        #expect(try Self.classify(Self.head(.delete, "/upload/a1", version)) == .cancel(id: "a1", version: version))
        let absolute = Self.head(.head, "https://example.com/upload/a2?q", version)
        #expect(try Self.classify(absolute) == .offset(id: "a2", version: version))
        let put = #expect(throws: UploadProtocolError.self) {
            try Self.classify(Self.head(.put, "/upload/a1", version))
        }
        #expect(put?.code == .methodNotAllowed)
        #expect(put?.status == 405)
        let nested = #expect(throws: UploadProtocolError.self) {
            try Self.classify(Self.head(.head, "/upload/a/b", version))
        }
        #expect(nested?.status == 404)
    }

    @Test(arguments: InteropVersion.all)
    func appendPerVersion(_ version: InteropVersion) throws {
        let fields = [
            ("Upload-Offset", "5"), Self.completion(version, false), ("Content-Length", "7"),
            ("Content-Type", "application/partial-upload"),
        ]
        let request = try Self.classify(Self.head(.patch, "/upload/u", version, fields))
        let expected = AppendRequest(version: version, offset: 5, complete: false, contentLength: 7)
        #expect(request == .append(id: "u", expected))
    }

    @Test(arguments: InteropVersion.all)
    func partialUploadContentTypeFromSixOn(_ version: InteropVersion) throws {
        for contentType in [nil, "application/octet-stream"] as [String?] {
            var fields = [("Upload-Offset", "0"), Self.completion(version, true)]
            if let contentType { fields.append(("Content-Type", contentType)) }
            let head = Self.head(.patch, "/upload/u", version, fields)
            if version.rawValue >= 6 {
                let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
                #expect(error?.code == .unsupportedMediaType)
                #expect(error?.status == 415)
                #expect(error?.field == "Content-Type")
            } else {
                #expect(
                    try Self.classify(head)
                        == .append(id: "u", AppendRequest(version: version, offset: 0, complete: true)))
            }
        }
        let spaced = Self.head(
            .patch, "/upload/u", version,
            [("Upload-Offset", "0"), Self.completion(version, true), ("Content-Type", " Application/Partial-Upload ")])
        #expect(
            try Self.classify(spaced) == .append(id: "u", AppendRequest(version: version, offset: 0, complete: true)))
    }

    @Test(arguments: InteropVersion.all)
    func appendWithoutCompletionFieldIsTheLastPartUntilSeven(_ version: InteropVersion) throws {
        let head = Self.head(
            .patch, "/upload/u", version, [("Upload-Offset", "3"), ("Content-Type", "application/partial-upload")])
        if version.requiresCompletionOnAppend {
            let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
            #expect(error?.code == .missingField)
            #expect(error?.field == "Upload-Complete")
        } else {
            #expect(
                try Self.classify(head) == .append(id: "u", AppendRequest(version: version, offset: 3, complete: true)))
        }
    }

    @Test(arguments: InteropVersion.all)
    func appendWithoutOffsetIs400(_ version: InteropVersion) throws {
        let head = Self.head(
            .patch, "/upload/u", version,
            [Self.completion(version, true), ("Content-Type", "application/partial-upload")])
        let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
        #expect(error?.code == .missingField)
        #expect(error?.field == "Upload-Offset")
        #expect(error?.status == 400)
    }

    @Test(arguments: InteropVersion.all)
    func malformedFieldsAre400NamingTheField(_ version: InteropVersion) throws {
        let type = ("Content-Type", "application/partial-upload")
        let cases: [(RequestHead, String)] = [
            (Self.head(.patch, "/upload/u", version, [("Upload-Offset", "abc"), type]), "Upload-Offset"),
            (Self.head(.patch, "/upload/u", version, [("Upload-Offset", "-1"), type]), "Upload-Offset"),
            (Self.head(.patch, "/upload/u", version, [("Upload-Offset", "?1"), type]), "Upload-Offset"),
            (
                Self.head(
                    .patch, "/upload/u", version, [("Upload-Offset", "0"), (version.completionFieldName, "1"), type]),
                version.completionFieldName
            ),
            (Self.head(.post, "/upload", version, [(version.completionFieldName, "yes")]), version.completionFieldName),
            (
                Self.head(.post, "/upload", version, [Self.completion(version, true), ("Idempotency-Key", "k")]),
                "Idempotency-Key"
            ),
            (
                Self.head(.post, "/upload", version, [Self.completion(version, true), ("Content-Length", "1x")]),
                "Content-Length"
            ),
        ]
        for (head, field) in cases {
            let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
            #expect(error?.code == .malformedField)
            #expect(error?.field == field)
            #expect(error?.status == 400)
        }
    }

    @Test(arguments: InteropVersion.all.filter(\.supportsUploadLength))
    func inconsistentUploadLengthIs400(_ version: InteropVersion) throws {
        let creation = Self.head(
            .post, "/upload", version,
            [Self.completion(version, true), ("Content-Length", "10"), ("Upload-Length", "11")])
        let error = #expect(throws: UploadProtocolError.self) { try Self.classify(creation) }
        #expect(error?.code == .inconsistentLength)
        #expect(error?.status == 400)
        let append = Self.head(
            .patch, "/upload/u", version,
            [
                ("Upload-Offset", "4"), Self.completion(version, true), ("Content-Length", "6"),
                ("Upload-Length", "11"),
                ("Content-Type", "application/partial-upload"),
            ])
        #expect(throws: UploadProtocolError.self) { try Self.classify(append) }
        let partial = Self.head(
            .post, "/upload", version,
            [Self.completion(version, false), ("Content-Length", "10"), ("Upload-Length", "11")])
        #expect(
            try Self.classify(partial)
                == .create(CreationRequest(version: version, complete: false, contentLength: 10, uploadLength: 11)))
    }

    @Test(arguments: InteropVersion.all)
    func uploadFieldsOnHeadAndDeleteUntilSixAndFromNine(_ version: InteropVersion) throws {
        for method in [HTTPMethod.head, .delete] {
            let head = Self.head(method, "/upload/u", version, [("Upload-Offset", "0")])
            if version.rawValue <= 6 || version.rawValue >= 9 {
                let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
                #expect(error?.code == .unexpectedField)
                #expect(error?.field == "Upload-Offset")
            } else {
                #expect(throws: Never.self) { try Self.classify(head) }
            }
        }
    }

    @Test(arguments: InteropVersion.all)
    func creationWithNonZeroOffsetUntilSix(_ version: InteropVersion) throws {
        let head = Self.head(.post, "/upload", version, [Self.completion(version, true), ("Upload-Offset", "3")])
        if version.rawValue <= 6 {
            let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
            #expect(error?.code == .unexpectedField)
        } else {
            #expect(try Self.classify(head) == .create(CreationRequest(version: version, complete: true)))
        }
    }

    @Test(arguments: InteropVersion.all)
    func creationBelowMinSizeIsPlain(_ version: InteropVersion) throws {
        let configuration = UploadProtocolConfiguration(limits: UploadLimits(minSize: 100))
        let small = Self.head(.post, "/upload", version, [Self.completion(version, true), ("Content-Length", "99")])
        #expect(try Self.classify(small, configuration) == .plainUpload)
        let unknown = Self.head(.post, "/upload", version, [Self.completion(version, false)])
        #expect(try Self.classify(unknown, configuration) == .plainUpload)
        let large = Self.head(.post, "/upload", version, [Self.completion(version, true), ("Content-Length", "100")])
        #expect(
            try Self.classify(large, configuration)
                == .create(CreationRequest(version: version, complete: true, contentLength: 100)))
    }

    @Test func chunkedCreationHasNoContentLength() throws {
        let version = try #require(InteropVersion(rawValue: 8))
        let head = Self.head(
            .post, "/upload", version,
            [Self.completion(version, true), ("Transfer-Encoding", "chunked"), ("Upload-Length", "9")])
        #expect(try Self.classify(head) == .create(CreationRequest(version: version, complete: true, uploadLength: 9)))
    }

    /// GET on an upload resource retrieves its offset from interop 9 (-12 §4.3); before, it is not defined there
    /// (405), the control.
    @Test(arguments: InteropVersion.all)
    func getRetrievesTheOffsetFromNine(_ version: InteropVersion) throws {
        let head = Self.head(.get, "/upload/u", version, [])
        if version.rawValue >= 9 {
            #expect(try Self.classify(head) == .offset(id: "u", version: version))
        } else {
            let error = #expect(throws: UploadProtocolError.self) { try Self.classify(head) }
            #expect(error?.status == 405)
        }
    }
}
