import Foundation
import HTTPWire
import SquallCore
import SquallPhotos
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadJobs
import UploadServer

/// An app's PhotoKit extension, here the seed's sample, run by the reference client's system through the facade,
/// against the reference server. The suite is serialized: the sample keeps its app records in one static place.
@Suite(.serialized)
struct PhotosExtensionHostTests {
    /// A temporary folder with seeded asset files and a reference server storing in it.
    final class Fixture {
        let folder: TLSFixtures.TemporaryDirectory
        let assets: [String]
        let server: UploadServer

        init(assets count: Int, size: Int = 30_000) throws {
            let folder = try TLSFixtures.TemporaryDirectory()
            self.folder = folder
            assets = try (0..<count).map { index in
                var generator = SeededGenerator(seed: UInt64(index + 1))
                let bytes = (0..<(size + index * 1_000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let path = folder.file("IMG_\(1000 + index).HEIC")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                return path
            }
            server = try UploadServer(
                configuration: UploadServerConfiguration(storeDirectory: folder.file("store")))
        }

        deinit {
            server.stop()
        }

        /// A system hosting `type` with the library holding the fixture's assets; `base` is where the extension
        /// believes it sends (the sample's `https://api.example.com`), mapped onto `target` (default: the server).
        func system(
            _ type: any PHBackgroundResourceUploadJobExtension.Type, inFlightLimit: Int = 3, retryLimit: Int = 2,
            base: String = "https://api.example.com", target: String? = nil, tokens: (any TokenSource)? = nil
        ) throws -> (UploadSystem, PhotosExtensionHost) {
            let host = try PhotosExtensionHost(
                type, assets: MutableAssetLibrary(assetIDs: assets),
                destinations: DestinationRule(base: base, target: target ?? server.url), folder: folder.file("journal"),
                tokens: tokens)
            let configuration = UploadSystemConfiguration(
                jobs: JobStoreConfiguration(inFlightLimit: inFlightLimit, retryLimit: retryLimit), developerMode: true)
            let system = try UploadSystem(
                journalFolder: folder.file("journal"), configuration: configuration, extension: host,
                sleeper: { _ in })
            return (system, host)
        }
    }

    @Test func theSampleUploadsEveryAssetRecordsItsIdAndAcknowledgesEachJobOnce() throws {
        let fixture = try Fixture(assets: 7)
        let (system, _) = try fixture.system(SampleUploadExtension.self, inFlightLimit: 3)
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        #expect(summary.stoppedEarly == nil)
        #expect(system.store.jobs.isEmpty)
        #expect(system.store.peakInFlight == 3, "the sample filled the in-flight limit and met limitExceeded")
        let records = fixture.server.uploads()
        #expect(records.count == 7 && records.allSatisfy(\.complete))
        let app = SampleRecords.snapshot
        #expect(Set(app.uploaded.keys) == Set(fixture.assets))
        #expect(Set(app.uploaded.values) == Set(records.map(\.id)), "x-server-resource-id read before acknowledging")
        #expect(app.failed.isEmpty)
        for history in system.ledger.all {
            #expect(history.attempts == 1)
            #expect(history.entries.filter { if case .acknowledged = $0.event { true } else { false } }.count == 1)
        }
    }

    /// The destination the sample built for api.example.com went to the server under test, with its header
    /// fields (the run's token from `SquallCredentials` among them, none when the run has no tokens); the id of the
    /// server's answer is what the sample recorded.
    @Test(arguments: [true, false])
    func theExtensionsDestinationIsSentToTheServerUnderTestWithItsFields(withTokens: Bool) throws {
        let fixture = try Fixture(assets: 1)
        let server = try ScriptedServer(steps: [
            ScriptedStep(respond: 501), ScriptedStep(respond: 201, fields: ["x-server-resource-id": "photo-77"]),
        ])
        defer { server.stop() }
        let (system, _) = try fixture.system(
            SampleUploadExtension.self, target: server.url, tokens: withTokens ? StaticToken("run-token-1") : nil)
        defer { system.close() }

        _ = try system.run()

        let requests = server.requests
        #expect(requests.map(\.head.method.rawValue) == ["OPTIONS", "POST"])
        let post = try #require(requests.last?.head)
        #expect(post.target == "/upload")
        #expect(post.fields["X-Filename"] == "IMG_1000.HEIC")
        #expect(post.fields["Authorization"] == (withTokens ? "Bearer run-token-1" : nil))
        #expect(SampleRecords.snapshot.uploaded == [fixture.assets[0]: "photo-77"])
    }

    /// A 500 for every upload is `badServerResponse`: the sample gives up at once (one attempt, recorded as failed,
    /// acknowledged) instead of retrying.
    @Test func aPermanentErrorIsRecordedAndAcknowledgedNotRetried() throws {
        let fixture = try Fixture(assets: 2)
        // The preflight gets 501 (no resumable uploads); every later request the scripted server's 500.
        let server = try ScriptedServer(steps: [ScriptedStep(respond: 501)])
        defer { server.stop() }
        let (system, _) = try fixture.system(SampleUploadExtension.self, retryLimit: 2, target: server.url)
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        #expect(system.store.jobs.isEmpty)
        #expect(server.requests.filter { $0.head.method == .post }.count == 2)
        #expect(
            SampleRecords.snapshot.failed
                == Dictionary(
                    uniqueKeysWithValues: fixture.assets.map { ($0, URLError.Code.badServerResponse.rawValue) }))
        #expect(system.ledger.all.allSatisfy { $0.attempts == 1 })
    }

    /// A destination outside the extension's BackgroundUploadURLBase is refused, as the system's network access
    /// validation refuses it: no job, no request, and the sample reports a failure.
    @Test func aDestinationOutsideTheBaseIsRefused() throws {
        let fixture = try Fixture(assets: 1)
        let (system, _) = try fixture.system(SampleUploadExtension.self, base: "https://uploads.example.org")
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.lastResult == .failure)
        #expect(system.ledger.all.isEmpty)
        #expect(fixture.server.uploads().isEmpty)
    }

    @Test func aDisabledExtensionIsNotCalled() throws {
        let fixture = try Fixture(assets: 2)
        let (system, host) = try fixture.system(SampleUploadExtension.self)
        defer { system.close() }
        try host.setEnabled(false)

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        #expect(system.ledger.all.isEmpty)
        #expect(!host.isEnabled)
    }
}
