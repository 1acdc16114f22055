import ResumableUpload
import Testing

struct UploadProblemTests {
    @Test func mismatchingOffsetJSON() {
        let json = String(decoding: UploadProblem.mismatchingOffset(expected: 100, provided: 42).json, as: UTF8.self)
        #expect(
            json == #"{"type":"https://iana.org/assignments/http-problem-types#mismatching-upload-offset","#
                + #""title":"offset from request does not match offset of resource","#
                + #""expected-offset":100,"provided-offset":42}"#)
    }

    @Test func completedAndInconsistentTypes() {
        let completed = String(decoding: UploadProblem.completedUpload.json, as: UTF8.self)
        #expect(completed.hasPrefix(#"{"type":"https://iana.org/assignments/http-problem-types#completed-upload","#))
        let inconsistent = String(decoding: UploadProblem.inconsistentLength.json, as: UTF8.self)
        #expect(inconsistent.contains(#"#inconsistent-upload-length""#))
        #expect(UploadProblem.completedUpload != UploadProblem.inconsistentLength)
    }

    @Test func stringsAreEscaped() {
        let problem = UploadProblem(type: "t", title: "a\"b\\c\nd\u{1}", members: [("n", -3)])
        #expect(String(decoding: problem.json, as: UTF8.self) == #"{"type":"t","title":"a\"b\\c\nd\u0001","n":-3}"#)
    }
}
