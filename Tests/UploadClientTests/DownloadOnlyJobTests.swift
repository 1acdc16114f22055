import TestSupport
import Testing
import UploadClient
import UploadJobs

/// Download-only jobs: no request, succeeded at once.
struct DownloadOnlyJobTests {
    final class Creator: UploadExtension, @unchecked Sendable {
        var created = false

        func processJobs(_ context: ExtensionContext) -> ProcessJobsResult {
            do {
                if !created {
                    try context.performChanges {
                        try $0.createJob(assetID: "cloud-1", destination: nil, type: .downloadOnly)
                    }
                    created = true
                    return .processing
                }
                for job in context.fetch(.acknowledge) {
                    try context.performChanges { try $0.acknowledge(job.localID) }
                }
                return context.jobs.isEmpty ? .completed : .processing
            } catch {
                return .failure
            }
        }

        func willTerminate() {}
    }

    @Test func aDownloadOnlyJobSucceedsWithoutARequest() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let system = try UploadSystem(
            journalFolder: folder.file("journal"), configuration: UploadSystemConfiguration(developerMode: true),
            extension: Creator())
        defer { system.close() }
        #expect(try system.run().lastResult == .completed)
        let history = try #require(system.ledger.all.first)
        #expect(history.state == .succeeded)
        #expect(history.attempts == 1)
        #expect(history.byteRanges.isEmpty)
    }
}
