import HTTPWire
import ResumableUpload
import Testing

/// `final`, the unversioned protocol: spelled `final`, listed after the drafts, the newest draft in every query,
/// never stamped on a message, and served only by a configuration that asks for it.
struct UnversionedTests {
    @Test(arguments: [
        ("3-10,final", [3, 4, 5, 6, 7, 8, 9, 10, InteropVersion.finalRawValue]),
        ("6,8", [6, 8]),
        ("final,6,6", [6, InteropVersion.finalRawValue]),
        ("9-9", [9]),
    ])
    func listsNameVersionsAndRanges(text: String, raw: [Int]) {
        #expect(InteropVersion.list(text)?.map(\.rawValue) == raw)
    }

    @Test(arguments: ["", "3-11", "10-3", "2", "x", "final-10", "6,", "3-", "FINAL"])
    func aListWithAWordThatIsNoVersionIsRefused(text: String) {
        #expect(InteropVersion.list(text) == nil)
    }

    @Test func finalIsTheNewestDraftWithoutItsField() throws {
        let newest = try #require(InteropVersion.all.last)
        #expect(InteropVersion.final > newest)
        #expect(InteropVersion.final.word == "final" && newest.word == "10")
        #expect(InteropVersion(word: "final") == .final && InteropVersion(word: "11") == nil)
        #expect(InteropVersion.final.retrievesOffsetOnGet == newest.retrievesOffsetOnGet)
        #expect(InteropVersion.final.flagsRejectionsIncomplete && InteropVersion.final.supportsUploadLength)
        #expect(!InteropVersion.final.offsetRetrievalRequiresCompletionAndLength)
        #expect(InteropVersion.final.completionFieldName == "Upload-Complete")
        var fields = HTTPFields()
        InteropVersion.final.stamp(&fields)
        #expect(fields.isEmpty)
        #expect(InteropVersion.final.isEchoed(in: fields))
        newest.stamp(&fields)
        #expect(fields["Upload-Draft-Interop-Version"] == "10")
        #expect(!InteropVersion.final.isEchoed(in: fields) && newest.isEchoed(in: fields))
        // A request that announces a number no draft has is never `final`.
        var huge = HTTPFields()
        huge.append(name: "Upload-Draft-Interop-Version", value: String(InteropVersion.finalRawValue))
        #expect(InteropVersion(fields: huge) == nil)
    }

    static func creation(_ fields: [(String, String)]) -> RequestHead {
        var head = RequestHead(method: .post, target: "/upload", fields: ["Host": "example.com"])
        for (name, value) in fields { head.fields.append(name: name, value: value) }
        return head
    }

    /// Without the field, a creation is `final` where the configuration serves it, and a plain upload where it does
    /// not (the default, the control); a field naming an unknown version is a plain upload either way.
    @Test func aCreationWithoutTheFieldIsFinalOnlyWhereServed() throws {
        var serving = UploadProtocolConfiguration()
        serving.versions.insert(.final)
        let bare = Self.creation([("Upload-Complete", "?1"), ("Content-Length", "3")])
        guard case .create(let request) = try UploadRequest.classify(bare, configuration: serving) else {
            Issue.record("not a creation")
            return
        }
        #expect(request.version == .final)
        #expect(try UploadRequest.classify(bare, configuration: UploadProtocolConfiguration()) == .plainUpload)
        let unknown = Self.creation([("Upload-Draft-Interop-Version", "11"), ("Upload-Complete", "?1")])
        #expect(try UploadRequest.classify(unknown, configuration: serving) == .plainUpload)
        #expect(UploadRequestFacts(bare, unversioned: true).createsResumableUpload)
        #expect(!UploadRequestFacts(bare).createsResumableUpload)
    }

    @Test func theAnswersOfFinalCarryNoVersionField() {
        let interim = UploadResponse.interim104(location: "/upload/a", version: .final, limits: UploadLimits())
        #expect(interim.fields["Upload-Draft-Interop-Version"] == nil)
        #expect(interim.fields["Location"] == "/upload/a")
        let error = UploadProtocolError(.mismatchingOffset, "x", expectedOffset: 3, providedOffset: 1)
        let rejection = UploadResponse.rejection(error, version: .final, limits: UploadLimits())
        #expect(rejection.head.status == 409 && rejection.head.fields["Upload-Draft-Interop-Version"] == nil)
        #expect(rejection.head.fields["Upload-Complete"] == "?0")
    }

    /// A server that serves `final` judges a bare creation's 104 as `final`'s; one that does not (the control)
    /// calls it unrequested.
    @Test func conformanceJudgesABareRequestAsFinalWhereServed() {
        let request = Self.creation([("Upload-Complete", "?1"), ("Content-Length", "3")])
        var interim = ResponseHead(status: 104, reason: "Upload Resumption Supported")
        interim.fields.append(name: "Location", value: "/upload/a")
        var final = ResponseHead(status: 200, reason: "OK")
        final.fields.append(name: "Upload-Complete", value: "?1")
        let exchange = ServerExchange(request: request, interims: [interim], response: final, bodyBytes: 3)
        #expect(ServerConformance.check(exchange, served: [10, InteropVersion.finalRawValue]).isEmpty)
        #expect(ServerConformance.check(exchange).map(\.rule) == [.unrequestedInterim])
        var echoing = interim
        echoing.fields.append(name: "Upload-Draft-Interop-Version", value: "10")
        let echoed = ServerExchange(request: request, interims: [echoing], response: final, bodyBytes: 3)
        #expect(
            ServerConformance.check(echoed, served: [InteropVersion.finalRawValue]).map(\.rule) == [.interimVersion])
    }
}
