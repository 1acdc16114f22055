import ResumableUpload
import Testing

struct UploadLimitsTests {
    static let full = UploadLimits(maxSize: 1000, minSize: 10, maxAppendSize: 500, minAppendSize: 5, maxAge: 3600)

    @Test(arguments: InteropVersion.all)
    func fieldPerVersion(_ version: InteropVersion) {
        let field = Self.full.field(for: version)
        switch version.rawValue {
        case 3...5:
            #expect(field == nil)
        case 6:
            #expect(field == "max-size=1000, min-size=10, max-append-size=500, min-append-size=5, expires=3600")
        default:
            #expect(field == "max-size=1000, min-size=10, max-append-size=500, min-append-size=5, max-age=3600")
        }
    }

    @Test(arguments: InteropVersion.all.filter(\.supportsLimits))
    func unlimitedIsMinSizeZero(_ version: InteropVersion) {
        #expect(UploadLimits().field(for: version) == "min-size=0")
        #expect(UploadLimits(maxSize: 7).field(for: version) == "max-size=7, min-size=0")
    }

    @Test(arguments: InteropVersion.all.filter(\.supportsLimits))
    func parsesWhatItWrites(_ version: InteropVersion) throws {
        let field = try #require(Self.full.field(for: version))
        #expect(try UploadLimits(field: field, version: version) == Self.full)
    }

    @Test func theAgeKeyDependsOnTheVersion() throws {
        let six = try #require(InteropVersion(rawValue: 6))
        let seven = try #require(InteropVersion(rawValue: 7))
        #expect(try UploadLimits(field: "expires=60", version: six).maxAge == 60)
        #expect(try UploadLimits(field: "expires=60", version: seven).maxAge == nil)
        #expect(try UploadLimits(field: "max-age=60", version: seven).maxAge == 60)
        #expect(try UploadLimits(field: "max-age=60, future=?1", version: seven) == UploadLimits(maxAge: 60))
    }

    @Test(arguments: ["max-size=\"big\"", "max-size=-1", "min-size=1.5", "max-size=(1 2)", "max-size=1,,"])
    func malformedLimitsNameTheField(_ field: String) throws {
        let version = try #require(InteropVersion(rawValue: 8))
        let error = #expect(throws: UploadProtocolError.self) { try UploadLimits(field: field, version: version) }
        #expect(error?.code == .malformedField)
        #expect(error?.field == "Upload-Limit")
        #expect(error?.status == 400)
    }

    @Test func remainingCountsMaxAgeDown() {
        let limits = UploadLimits(maxSize: 9, maxAge: 100)
        #expect(
            limits.remaining(expiresAt: .seconds(1100), now: .seconds(1030)) == UploadLimits(maxSize: 9, maxAge: 70))
        #expect(limits.remaining(expiresAt: .seconds(1100), now: .seconds(2000)).maxAge == 0)
        #expect(limits.remaining(expiresAt: nil, now: .seconds(2000)).maxAge == 100)
    }
}
