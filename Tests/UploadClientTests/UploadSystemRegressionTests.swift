import Foundation
import JobJournal
import TestSupport
import Testing
import UploadClient
import UploadJobs

/// Regressions found in review: each failed before its fix (a stuck job, a crash-free lowered limit, a retry that
/// uploaded twice, a terminate that did not stop a relaunch).
struct UploadSystemRegressionTests {
    /// A journal written with in-flight limit 3 (one job succeeded, two failed transiently), reopened with limit 2:
    /// step 1's retry hits limitExceeded and the policy returns before acknowledging the succeeded job.
    @Test func loweredInFlightLimitStillAcknowledgesSucceededJobs() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let journalFolder = folder.file("journal")
        let assets = ["/tmp/a1", "/tmp/a2", "/tmp/a3"]
        let destination = UploadDestination(url: "http://127.0.0.1:1/upload")
        do {
            let journal = try JobJournal(folder: journalFolder, store: JobStoreConfiguration(inFlightLimit: 3))
            try journal.performChanges(at: 1) { block in
                for asset in assets { try block.createJob(assetID: asset, destination: destination) }
                for n in 1...3 { try block.start(JobID(n)) }
                try block.succeed(JobID(1), status: 201, headers: [HeaderField("X-Server-Resource-ID", "r1")])
                try block.fail(JobID(2), error: .networkConnectionLost)
                try block.fail(JobID(3), error: .networkConnectionLost)
            }
            journal.close()
        }
        let policy = try DefaultUploadPolicy(
            assets: assets, destination: UploadDestinationTemplate(url: destination.url, tokens: nil),
            statePath: folder.file("extension.json"))
        let system = try UploadSystem(
            journalFolder: journalFolder,
            configuration: UploadSystemConfiguration(
                jobs: JobStoreConfiguration(inFlightLimit: 2), developerMode: true, idleInvocationLimit: 5),
            extension: policy)
        defer { withExtendedLifetime(folder) { system.close() } }

        let summary = try system.run()

        #expect(summary.stoppedEarly == nil)
        #expect(policy.outcomes.uploaded["/tmp/a1"] == "r1")
        #expect(system.store.job(JobID(1)) == nil)
    }

    /// A final 2xx whose Location differs from the 104's: the transfer fails with status 201, which the store
    /// refuses (a 2xx failure), `try? settle` swallows it and the job stays pending with no transfer.
    @Test func aLocationMismatchOnA2xxFailsTheJob() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(2_000, seed: 7, name: "mismatch")
        let server = try ScriptedServer { url in
            [
                ScriptedStep(respond: 404),
                ScriptedStep(
                    interims: [ScriptedStep.interim104(version: 8, location: url + "/upload/a")], respond: 201,
                    fields: ["Location": url + "/upload/b"]),
            ]
        }
        defer { server.stop() }
        let (system, policy) = try UploadSystemTests.system(fixture, assets: [path], url: server.url)
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.stoppedEarly == nil)
        #expect(system.store.jobs.isEmpty)
        #expect(policy.outcomes.failed[path] == .badServerResponse)
    }

    /// HEAD reports an offset below one the server acknowledged: fail + DELETE, outcome carries HEAD's 204.
    @Test func anOffsetGoingBackwardsFailsTheJob() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(2_000, seed: 8, name: "backwards")
        let server = try ScriptedServer { url in
            [
                ScriptedStep(respond: 404),
                ScriptedStep(
                    interims: [
                        ScriptedStep.interim104(version: 8, location: url + "/upload/a"),
                        ScriptedStep.interim104(version: 8, offset: 1_500, afterBytes: 1_500),
                    ], bodyLimit: 1_600, ending: .reset),
                ScriptedStep(respond: 204, fields: ["Upload-Offset": "500", "Upload-Complete": "?0"]),
                ScriptedStep(respond: 204),
            ]
        }
        defer { server.stop() }
        let (system, policy) = try UploadSystemTests.system(fixture, assets: [path], url: server.url)
        defer { system.close() }

        let summary = try system.run()

        #expect(server.requests.map(\.head.method.rawValue) == ["OPTIONS", "POST", "HEAD", "DELETE"])
        #expect(summary.stoppedEarly == nil)
        #expect(system.store.jobs.isEmpty)
        #expect(policy.outcomes.failed[path] == .badServerResponse)
    }

    /// The server got every byte (104 announced the upload) but the final response was lost and every HEAD is
    /// reset: after the automatic resumes run out the job fails transiently, and the policy's retry sends a new
    /// creation from byte 0 without asking the announced upload resource first: a second full upload.
    @Test func aRetryAfterA104AsksTheAnnouncedResourceBeforeCreatingAgain() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(2_000, seed: 9, name: "lost-final")
        let server = try ScriptedServer { url in
            [ScriptedStep(respond: 404)]
                + [
                    ScriptedStep(
                        interims: [ScriptedStep.interim104(version: 8, location: url + "/upload/a")], ending: .close)
                ]
                + Array(repeating: ScriptedStep(ending: .reset), count: 5)
                + [
                    ScriptedStep(respond: 204, fields: ["Upload-Offset": "2000", "Upload-Complete": "?1"]),
                    ScriptedStep(respond: 201),
                ]
        }
        defer { server.stop() }
        let (system, _) = try UploadSystemTests.system(fixture, assets: [path], url: server.url)
        defer { system.close() }

        _ = try system.run()

        let methods = server.requests.map(\.head.method.rawValue)
        #expect(methods.filter { $0 == "POST" }.count == 1, "requests: \(methods)")
    }

    /// terminate() before (or during) run(): reconcile() still launches the pending job's transfer, after the
    /// terminate sweep, so nothing cancels it and run() waits for it to finish.
    @Test func aTerminatedSystemStartsNoTransferOnRelaunch() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(2_000, seed: 10, name: "relaunch")
        let server = try ScriptedServer { _ in
            [
                ScriptedStep(respond: 204, fields: ["Upload-Offset": "0", "Upload-Complete": "?0"]),
                ScriptedStep(respond: 201),
            ]
        }
        defer { server.stop() }
        do {
            let journal = try JobJournal(folder: fixture.folder.file("journal"))
            try journal.performChanges(at: 1) { block in
                let id = try block.createJob(
                    assetID: path, destination: UploadDestination(url: server.url + "/upload"))
                try block.start(id)
                try block.record(.uploadResource(location: server.url + "/upload/r1"), job: id)
            }
            journal.close()
        }
        let (system, _) = try UploadSystemTests.system(fixture, assets: [path], url: server.url)
        defer { system.close() }

        system.terminate()
        let summary = try system.run()

        #expect(summary.stoppedEarly == "terminated")
        #expect(server.requests.map(\.head.method.rawValue) == [])
    }

    /// More jobs held than a lowered in-flight limit allows: no new job is created (no negative slot count), the
    /// held ones run, and every asset is uploaded once.
    @Test func aJournalReopenedWithALowerLimitFinishesItsJobs() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 4)
        let assets = files.map(\.0)
        do {
            let journal = try JobJournal(
                folder: fixture.folder.file("journal"), store: JobStoreConfiguration(inFlightLimit: 3))
            try journal.performChanges(at: 1) { block in
                for asset in assets.prefix(3) {
                    try block.createJob(assetID: asset, destination: UploadDestination(url: server.url + "/upload"))
                }
            }
            journal.close()
        }
        let (system, policy) = try UploadSystemTests.system(
            fixture, assets: assets, url: server.url, jobs: JobStoreConfiguration(inFlightLimit: 1))
        defer { system.close() }

        #expect(try system.run().lastResult == .completed)
        #expect(policy.outcomes.uploaded.count == 4)
        #expect(Set(server.uploads().compactMap(\.sha256)) == Set(files.map(\.1)))
        #expect(server.uploads().count == 4)
    }
}
