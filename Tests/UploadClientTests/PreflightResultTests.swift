import HTTPWire
import ResumableUpload
import Testing
import UploadClient

struct PreflightResultTests {
    static let v8 = InteropVersion(rawValue: 8)!

    @Test func a200WithUploadLimitIsResumableWithTheLimits() {
        let head = ResponseHead(status: 200, fields: ["Upload-Limit": "max-size=100, min-size=0, max-append-size=10"])
        #expect(
            PreflightResult(response: head, version: Self.v8)
                == .resumable(UploadLimits(maxSize: 100, minSize: 0, maxAppendSize: 10)))
    }

    @Test func olderVersionsReadTheInterop6Spelling() {
        let head = ResponseHead(status: 200, fields: ["Upload-Limit": "min-size=0, expires=60"])
        let result = PreflightResult(response: head, version: InteropVersion(rawValue: 3)!)
        #expect(result.limits == UploadLimits(minSize: 0, maxAge: 60))
    }

    @Test(arguments: [
        (ResponseHead(status: 501), PreflightResult.notResumable),
        (ResponseHead(status: 200), .unknown(status: 200)),
        (ResponseHead(status: 200, fields: ["Upload-Limit": "max-size=\"big\""]), .unknown(status: 200)),
        (ResponseHead(status: 404), .unknown(status: 404)),
        (ResponseHead(status: 401), .unknown(status: 401)),
    ])
    func otherAnswers(head: ResponseHead, expected: PreflightResult) {
        #expect(PreflightResult(response: head, version: Self.v8) == expected)
    }

    @Test func theCacheKeepsDefiniteAnswersPerURLAndVersion() {
        let cache = PreflightCache()
        cache.store(.notResumable, for: "http://a/upload", version: Self.v8)
        cache.store(.unknown(status: 404), for: "http://b/upload", version: Self.v8)
        #expect(cache.answer(for: "http://a/upload", version: Self.v8) == .notResumable)
        #expect(cache.answer(for: "http://a/upload", version: InteropVersion(rawValue: 6)!) == nil)
        #expect(cache.answer(for: "http://b/upload", version: Self.v8) == nil)
    }
}
