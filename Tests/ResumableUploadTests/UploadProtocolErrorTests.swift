import ResumableUpload
import Testing

struct UploadProtocolErrorTests {
    @Test(arguments: UploadProtocolError.Code.allCases)
    func statusAndProblemTypePerCode(_ code: UploadProtocolError.Code) {
        let error = UploadProtocolError(code, "detail")
        let expected: [UploadProtocolError.Code: (Int, String?)] = [
            .malformedField: (400, nil), .missingField: (400, nil), .unexpectedField: (400, nil),
            .unsupportedMediaType: (415, nil),
            .mismatchingOffset: (409, "https://iana.org/assignments/http-problem-types#mismatching-upload-offset"),
            .inconsistentLength: (400, "https://iana.org/assignments/http-problem-types#inconsistent-upload-length"),
            .completedUpload: (400, "https://iana.org/assignments/http-problem-types#completed-upload"),
            .uploadTooLarge: (413, nil), .appendTooLarge: (413, nil), .appendTooSmall: (400, nil),
            .unknownUpload: (404, nil), .methodNotAllowed: (405, nil), .contentDigestMismatch: (400, nil),
            .representationDigestMismatch: (400, nil),
        ]
        #expect(error.status == expected[code]?.0)
        #expect(error.problemType == expected[code]?.1)
        #expect(error.description == "\(code.rawValue) (\(error.status)): detail")
    }
}
