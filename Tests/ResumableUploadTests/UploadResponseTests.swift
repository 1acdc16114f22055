import HTTPWire
import ResumableUpload
import Testing

struct UploadResponseTests {
    static let limits = UploadLimits(maxSize: 100, maxAge: 60)

    static func fields(_ head: ResponseHead) -> [String: String] {
        Dictionary(head.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test(arguments: InteropVersion.all)
    func interim104AnnouncesTheResource(_ version: InteropVersion) {
        let head = UploadResponse.interim104(location: "https://h/upload/t", version: version, limits: Self.limits)
        #expect(head.status == 104)
        #expect(head.reason == "Upload Resumption Supported")
        var expected = ["Upload-Draft-Interop-Version": String(version.rawValue), "Location": "https://h/upload/t"]
        if version.rawValue == 6 { expected["Upload-Limit"] = "max-size=100, min-size=0, expires=60" }
        if version.rawValue >= 7 { expected["Upload-Limit"] = "max-size=100, min-size=0, max-age=60" }
        #expect(Self.fields(head) == expected)
    }

    @Test(arguments: InteropVersion.all)
    func progress104CarriesOnlyTheOffset(_ version: InteropVersion) {
        let head = UploadResponse.progress104(offset: 4096, version: version)
        #expect(head.status == 104)
        #expect(
            Self.fields(head) == ["Upload-Draft-Interop-Version": String(version.rawValue), "Upload-Offset": "4096"])
    }

    @Test(arguments: InteropVersion.all)
    func completeCreationFinal(_ version: InteropVersion) {
        let response = UploadResponse.creationFinal(
            version: version, location: "/upload/t", offset: 10, complete: true, limits: UploadLimits(), resourceID: "t"
        )
        let fields = Self.fields(response.head)
        #expect(response.head.status == (version.rawValue <= 6 ? 201 : 200))
        #expect(fields["Location"] == "/upload/t")
        #expect(fields["x-server-resource-id"] == "t")
        #expect(fields["Upload-Offset"] == (version.rawValue <= 6 ? "10" : nil))
        #expect(fields["Upload-Incomplete"] == nil)
        #expect(fields["Upload-Complete"] == (version.rawValue >= 4 ? "?1" : nil))
        #expect(fields["Upload-Limit"] == (version.rawValue >= 6 ? "min-size=0" : nil))
        #expect(fields["Content-Length"] == "0")
        #expect(response.body.isEmpty)
    }

    @Test(arguments: InteropVersion.all)
    func partialCreationFinal(_ version: InteropVersion) {
        let response = UploadResponse.creationFinal(
            version: version, location: "/upload/t", offset: 4, complete: false, limits: UploadLimits(), resourceID: "t"
        )
        let fields = Self.fields(response.head)
        #expect(response.head.status == 201)
        #expect(fields["Location"] == "/upload/t")
        #expect(fields["x-server-resource-id"] == nil)
        #expect(fields[version.completionFieldName] == (version.rawValue == 3 ? "?1" : "?0"))
    }

    @Test(arguments: InteropVersion.all)
    func appendFinal(_ version: InteropVersion) {
        let partial = UploadResponse.appendFinal(
            version: version, offset: 8, complete: false, limits: UploadLimits(), resourceID: "t")
        let complete = UploadResponse.appendFinal(
            version: version, offset: 9, complete: true, limits: UploadLimits(), resourceID: "t")
        #expect(partial.head.status == (version.rawValue <= 6 ? 201 : 204))
        #expect(complete.head.status == (version.rawValue <= 6 ? 201 : 200))
        #expect(Self.fields(partial.head)["Location"] == nil)
        #expect(Self.fields(partial.head)["Content-Length"] == (version.rawValue <= 6 ? "0" : nil))
        #expect(Self.fields(complete.head)["x-server-resource-id"] == "t")
        #expect(Self.fields(complete.head)["Upload-Offset"] == (version.rawValue <= 6 ? "9" : nil))
    }

    @Test(arguments: InteropVersion.all)
    func offsetRetrieval(_ version: InteropVersion) {
        let response = UploadResponse.offsetRetrieval(
            version: version, offset: 25, complete: false, length: 100, limits: Self.limits, resourceID: "t")
        var expected = [
            "Upload-Draft-Interop-Version": String(version.rawValue), "Upload-Offset": "25",
            version.completionFieldName: version.rawValue == 3 ? "?1" : "?0", "Cache-Control": "no-store",
        ]
        if version.rawValue >= 6 {
            expected["Upload-Length"] = "100"
            expected["Upload-Limit"] = Self.limits.field(for: version)
        }
        #expect(response.head.status == 204)
        #expect(Self.fields(response.head) == expected)
        #expect(response.body.isEmpty)
    }

    @Test(arguments: InteropVersion.all)
    func headMayAnswer200FromFive(_ version: InteropVersion) {
        let response = UploadResponse.offsetRetrieval(
            version: version, offset: 0, complete: true, length: nil, limits: UploadLimits(), preferredStatus: 200,
            resourceID: "t")
        #expect(response.head.status == (version.rawValue >= 5 ? 200 : 204))
        #expect(Self.fields(response.head)["x-server-resource-id"] == "t")
        #expect(Self.fields(response.head)[version.completionFieldName] == (version.rawValue == 3 ? "?0" : "?1"))
        #expect(Self.fields(response.head)["Upload-Length"] == nil)
    }

    @Test(arguments: InteropVersion.all)
    func mismatch409(_ version: InteropVersion) {
        let error = UploadProtocolError(.mismatchingOffset, "x", expectedOffset: 30, providedOffset: 12)
        let response = UploadResponse.rejection(error, version: version, limits: UploadLimits())
        let fields = Self.fields(response.head)
        #expect(response.head.status == 409)
        #expect(fields["Upload-Offset"] == "30")
        #expect(fields[version.completionFieldName] == version.completionValue(complete: false))
        #expect(fields["Content-Type"] == "application/problem+json")
        #expect(fields["Content-Length"] == String(response.body.count))
        #expect(response.body == UploadProblem.mismatchingOffset(expected: 30, provided: 12).json)
    }

    @Test(arguments: InteropVersion.all)
    func completedUploadPerVersion(_ version: InteropVersion) {
        let error = UploadProtocolError(.completedUpload, "done")
        let empty = UploadResponse.rejection(error, version: version, limits: UploadLimits(), emptyContent: true)
        let full = UploadResponse.rejection(error, version: version, limits: UploadLimits(), emptyContent: false)
        switch version.rawValue {
        case 3...5:
            #expect(empty.head.status == 400)
            #expect(empty.body.isEmpty)
        case 6, 7:
            #expect(full.head.status == 400)
            #expect(full.body == UploadProblem.completedUpload.json)
        case 8:
            #expect(empty.head.status == 410)
            #expect(empty.body == UploadProblem.completedUpload.json)
            #expect(full.head.status == 400)
            #expect(full.body == UploadProblem.inconsistentLength.json)
        default:
            // -12 dropped the `completed-upload` problem; the rejection is the resumption layer's (`?0`).
            #expect(empty.head.status == 410)
            #expect(empty.body.isEmpty)
            #expect(empty.head.fields["Upload-Complete"] == "?0")
            #expect(full.head.status == 400)
            #expect(full.body == UploadProblem.inconsistentLength.json)
            #expect(full.head.fields["Upload-Complete"] == "?0")
        }
    }

    @Test(arguments: InteropVersion.all)
    func inconsistentLength400(_ version: InteropVersion) {
        let response = UploadResponse.rejection(
            UploadProtocolError(.inconsistentLength, "x"), version: version, limits: UploadLimits())
        #expect(response.head.status == 400)
        #expect(response.body == (version.rawValue >= 7 ? UploadProblem.inconsistentLength.json : Array("x\n".utf8)))
    }

    @Test(arguments: InteropVersion.all)
    func tooLarge413WithLimits(_ version: InteropVersion) {
        let limits = UploadLimits(maxSize: 50, maxAppendSize: 10)
        let response = UploadResponse.rejection(
            UploadProtocolError(.appendTooLarge, "x"), version: version, limits: limits)
        #expect(response.head.status == 413)
        #expect(Self.fields(response.head)["Upload-Limit"] == limits.field(for: version))
        #expect(Self.fields(response.head)["Content-Length"] == "0")
    }

    /// A rejection without a problem type says what was wrong in a line of text (an empty 400 or 415 tells a
    /// person nothing).
    @Test func rejectionsWithoutAProblemTypeExplainThemselves() {
        let response = UploadResponse.rejection(
            UploadProtocolError(.unknownUpload, "no upload /upload/7"), version: nil, limits: UploadLimits())
        #expect(response.head.status == 404)
        #expect(Self.fields(response.head) == ["Content-Type": "text/plain; charset=utf-8", "Content-Length": "20"])
        #expect(response.body == Array("no upload /upload/7\n".utf8))
        let media = UploadResponse.rejection(
            UploadProtocolError(.unsupportedMediaType, "an append must have Content-Type application/partial-upload"),
            version: InteropVersion(rawValue: 6), limits: UploadLimits())
        #expect(media.head.status == 415)
        #expect(String(decoding: media.body, as: UTF8.self).contains("application/partial-upload"))
    }

    @Test(arguments: InteropVersion.all)
    func optionsAndCancel(_ version: InteropVersion) {
        let options = UploadResponse.options(version: version, limits: UploadLimits(), resumable: true)
        #expect(options.head.status == 200)
        #expect(Self.fields(options.head)["Upload-Limit"] == "min-size=0")
        let limited = UploadResponse.options(version: version, limits: UploadLimits(maxAge: 9), resumable: true)
        let ageKey = version.rawValue <= 6 ? "expires" : "max-age"
        #expect(Self.fields(limited.head)["Upload-Limit"] == "min-size=0, \(ageKey)=9")
        let off = UploadResponse.options(version: version, limits: UploadLimits(), resumable: false)
        #expect(off.head.status == 501)
        #expect(Self.fields(off.head)["Upload-Limit"] == nil)
        let cancelled = UploadResponse.cancelled(version: version)
        #expect(cancelled.head.status == 204)
        #expect(Self.fields(cancelled.head)["Content-Length"] == nil)
    }
}
