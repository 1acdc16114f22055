import Foundation
import SquallPhotos
import Synchronization
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadJobs
import UploadServer

/// The negative control of `PhotosExtensionHostTests`: an extension that never acknowledges fills the in-flight
/// limit and uploads no more, and the same expectations that the sample meets fail for it.
@Suite(.serialized)
struct BuggyExtensionTests {
    /// Creates a job for every asset it has not created one for, until `limitExceeded`; never acknowledges.
    final class NeverAcknowledges: PHBackgroundResourceUploadJobExtension {
        static let created = Mutex<Set<String>>([])

        required init() {}

        func processJobs() async -> PHBackgroundResourceUploadProcessingResult {
            let assets = PHAsset.fetchAssets(with: nil)
            do {
                for i in 0..<assets.count {
                    let resource = PHAssetResource.assetResources(for: assets.object(at: i))[0]
                    guard !Self.created.withLock({ $0.contains(resource.assetLocalIdentifier) }) else { continue }
                    try await PHPhotoLibrary.shared().performChanges {
                        var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
                        request.httpMethod = "POST"
                        _ = PHAssetResourceUploadJobChangeRequest.creationRequestForJob(
                            destination: request, resource: resource)
                    }
                    Self.created.withLock { _ = $0.insert(resource.assetLocalIdentifier) }
                }
                return .completed
            } catch PHPhotosError.limitExceeded {
                return .processing
            } catch {
                return .failure
            }
        }

        func willTerminate() async {}
    }

    @Test func anExtensionThatNeverAcknowledgesStallsAtTheLimit() throws {
        NeverAcknowledges.created.withLock { $0 = [] }
        let fixture = try PhotosExtensionHostTests.Fixture(assets: 7)
        let (system, _) = try fixture.system(NeverAcknowledges.self, inFlightLimit: 3)
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.stoppedEarly?.contains("no progress") == true)
        #expect(system.store.jobs.count == 3, "three succeeded jobs hold every slot")
        #expect(fixture.server.uploads().count == 3, "four assets never uploaded")
    }
}
