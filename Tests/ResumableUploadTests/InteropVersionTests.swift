import HTTPWire
import ResumableUpload
import Testing

struct InteropVersionTests {
    @Test(arguments: 3...10)
    func parsesEveryImplementedVersion(_ number: Int) throws {
        let version = try #require(InteropVersion(fields: ["Upload-Draft-Interop-Version": String(number)]))
        #expect(version.rawValue == number)
    }

    @Test(arguments: ["", "2", "11", "-6", "6.0", "\"6\"", "6, 7", "?1", "6;x=1x", "abc"])
    func missingMalformedOrUnknownVersionsAreNil(_ value: String) {
        #expect(InteropVersion(fields: ["Upload-Draft-Interop-Version": value]) == nil)
        #expect(InteropVersion(fields: ["Content-Length": "6"]) == nil)
    }

    @Test func versionParametersAreIgnoredLikeAnyItem() throws {
        let version = try #require(InteropVersion(fields: ["upload-draft-interop-version": "8;a=1"]))
        #expect(version.rawValue == 8)
    }

    @Test(arguments: InteropVersion.all)
    func completionFieldNameAndPolarity(_ version: InteropVersion) {
        if version.rawValue == 3 {
            #expect(version.completionFieldName == "Upload-Incomplete")
            #expect(version.completionValue(complete: true) == "?0")
            #expect(version.completionValue(complete: false) == "?1")
        } else {
            #expect(version.completionFieldName == "Upload-Complete")
            #expect(version.completionValue(complete: true) == "?1")
            #expect(version.completionValue(complete: false) == "?0")
        }
    }

    @Test(arguments: InteropVersion.all)
    func featureQueriesFollowTheDraftHistory(_ version: InteropVersion) {
        let number = version.rawValue
        #expect(version.supportsLimits == (number >= 6))
        #expect(version.supportsUploadLength == (number >= 6))
        #expect(version.requiresPartialUploadContentType == (number >= 6))
        #expect(version.requiresCompletionOnAppend == (number >= 7))
        #expect(version.headSuccessStatuses == (number >= 7 ? Set(200...299) : number >= 5 ? [200, 204] : [204]))
        #expect(version.sendsProgress == (number >= 5))
        #expect(version.limitsAgeKey == (number < 6 ? nil : number == 6 ? "expires" : "max-age"))
        #expect(version.finalResponseCarriesOffset == (number <= 6))
        #expect(version.hasInconsistentLengthProblem == (number >= 7))
    }

    @Test func allListsThreeToTenInOrder() {
        #expect(InteropVersion.all.map(\.rawValue) == [3, 4, 5, 6, 7, 8, 9, 10])
        #expect(InteropVersion(rawValue: 2) == nil)
        #expect(InteropVersion(rawValue: 11) == nil)
        #expect(InteropVersion(rawValue: 5)! < InteropVersion(rawValue: 6)!)
    }

    /// What interop 9 (-12) and 10 (-13) change, each predicate against the versions before: the control is 8.
    @Test(arguments: 3...10)
    func theNewestDraftsDifferWhereTheySay(_ number: Int) throws {
        let version = try #require(InteropVersion(rawValue: number))
        #expect(version.retrievesOffsetOnGet == (number >= 9))
        #expect(version.flagsRejectionsIncomplete == (number >= 9))
        #expect(version.invalidatesOnLengthOverrun == (number >= 9))
        #expect(version.rejectionsCarryLimits == (number >= 9))
        #expect(version.rejectsTooLargeAppendFirst == (number >= 9))
        #expect(version.partialResponseCarriesOffset == (number <= 6 || number >= 9))
        #expect(version.rejectsUploadFieldsOnHeadAndDelete == (number <= 6 || number >= 9))
        #expect(version.hasCompletedUploadProblem == (6...8).contains(number))
        #expect(version.offsetRetrievalRequiresCompletionAndLength == (number <= 9))
    }
}
