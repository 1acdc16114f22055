import Foundation
import SquallPhotos
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadJobs

/// Change blocks through the facade: atomic as PhotoKit's, with `limitExceeded` caught by the `catch` pattern the
/// seed uses, and termination while `processJobs()` runs.
@Suite(.serialized)
struct ChangeBlockTests {
    /// What the probes saw, for the test to read.
    static let seen = Mutex<[String]>([])

    /// Creates three jobs in one block under a limit of two: the block throws and lands none; then two, which land.
    final class LimitProbe: PHBackgroundResourceUploadJobExtension {
        required init() {}

        func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
            let library = PHPhotoLibrary.shared()
            let finished = PHAssetResourceUploadJob.fetchJobs(action: .acknowledge, options: nil)
            guard ChangeBlockTests.seen.withLock({ $0.isEmpty }) else {
                // Later invocations only clear what the first one made.
                try? library.performChangesAndWait {
                    for i in 0..<finished.count {
                        PHAssetResourceUploadJobChangeRequest(for: finished.object(at: i))?.acknowledge()
                    }
                }
                return .completed
            }
            let assets = PHAsset.fetchAssets(with: nil)
            do {
                try await library.performChanges {
                    for i in 0..<3 { Self.create(PHAssetResource.assetResources(for: assets.object(at: i))[0]) }
                }
                ChangeBlockTests.seen.withLock { $0.append("three landed") }
            } catch PHPhotosError.limitExceeded {
                let held = PHAssetResourceUploadJob.fetchJobs(action: .process, options: nil).count
                ChangeBlockTests.seen.withLock { $0.append("limitExceeded, \(held) held") }
            } catch {
                ChangeBlockTests.seen.withLock { $0.append("other error \(error)") }
            }
            do {
                try library.performChangesAndWait {
                    for i in 0..<2 { Self.create(PHAssetResource.assetResources(for: assets.object(at: i))[0]) }
                }
                let held = PHAssetResourceUploadJob.fetchJobs(action: .process, options: nil).count
                ChangeBlockTests.seen.withLock { $0.append("\(held) held") }
            } catch {
                ChangeBlockTests.seen.withLock { $0.append("two refused: \(error)") }
            }
            return .completed
        }

        func willTerminate() async {}

        static func create(_ resource: PHAssetResource) {
            var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
            request.httpMethod = "POST"
            _ = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(destination: request, resource: resource)
        }
    }

    @Test func aBlockPastTheLimitLandsNothingAndThrowsLimitExceeded() throws {
        Self.seen.withLock { $0 = [] }
        let folder = try TLSFixtures.TemporaryDirectory()
        let assets = try (0..<3).map { index in
            let path = folder.file("asset-\(index)")
            try Data([UInt8(index)]).write(to: URL(fileURLWithPath: path))
            return path
        }
        let host = try PhotosExtensionHost(
            LimitProbe.self, assets: MutableAssetLibrary(assetIDs: assets),
            destinations: DestinationRule(base: "https://api.example.com", target: "http://127.0.0.1:9"))
        // The jobs go to the discard port and fail (cannotConnectToHost, no retries); the probe then acknowledges them.
        let configuration = UploadSystemConfiguration(
            jobs: JobStoreConfiguration(inFlightLimit: 2, retryLimit: 0), developerMode: true)
        let system = try UploadSystem(
            journalFolder: folder.file("journal"), configuration: configuration, extension: host, sleeper: { _ in })
        defer { system.close() }

        let summary = try system.run()

        #expect(Self.seen.withLock { $0 } == ["limitExceeded, 0 held", "2 held"])
        #expect(system.ledger.all.count == 2, "the refused block created nothing")
        #expect(summary.lastResult == .completed && system.store.jobs.isEmpty)
    }
}

/// `willTerminate()` reaches an invocation that is busy (it runs on its own thread), and the invocation returns.
@Suite(.serialized)
struct TerminationTests {
    /// Works until it sees the flag `willTerminate()` sets, as the seed's extension checks it.
    final class BusyUntilTerminated: PHBackgroundResourceUploadJobExtension {
        static let started = DispatchSemaphore(value: 0)
        static let sawTermination = Mutex(false)
        private let isCancelled = Atomic<Bool>(false)

        required init() {}

        func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
            Self.started.signal()
            // Busy without suspending (synchronous work between checks), so only another thread can set the flag.
            while !isCancelled.load(ordering: .acquiring) { sched_yield() }
            Self.sawTermination.withLock { $0 = true }
            return .processing
        }

        func willTerminate() async {
            isCancelled.store(true, ordering: .releasing)
        }
    }

    @Test func willTerminateReachesABusyInvocation() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let host = try PhotosExtensionHost(
            BusyUntilTerminated.self, assets: MutableAssetLibrary(assetIDs: []),
            destinations: DestinationRule(base: "https://api.example.com", target: "http://127.0.0.1:9"))
        let system = try UploadSystem(
            journalFolder: folder.file("journal"),
            configuration: UploadSystemConfiguration(developerMode: true), extension: host, sleeper: { _ in })
        defer { system.close() }
        let ended = DispatchSemaphore(value: 0)
        let summary = Mutex<UploadSystemSummary?>(nil)
        Thread {
            let result = try? system.run()
            summary.withLock { $0 = result }
            ended.signal()
        }.start()

        #expect(BusyUntilTerminated.started.wait(timeout: .now() + 20) == .success)
        system.terminate()

        #expect(ended.wait(timeout: .now() + 20) == .success, "the invocation returned once terminated")
        #expect(BusyUntilTerminated.sawTermination.withLock { $0 })
        #expect(summary.withLock { $0 }?.stoppedEarly == "terminated")
    }
}
