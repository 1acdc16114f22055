import Testing
import UploadJobs

struct JobIDTests {
    @Test(
        arguments: [
            ("job-1", 1), ("job-42", 42), ("job-0", nil), ("job--1", nil), ("job-", nil), ("Job-1", nil),
            ("job-1x", nil), ("1", nil),
        ] as [(String, Int?)])
    func parses(text: String, number: Int?) {
        #expect(JobID(parsing: text)?.number == number)
    }

    @Test func ordersByCreation() {
        #expect(JobID(2) < JobID(10))
        #expect(JobID(10).description == "job-10")
    }
}
