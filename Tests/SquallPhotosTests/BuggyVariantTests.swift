import Foundation
import Harness
import Scenario
import SquallPhotos
import Testing

/// The negative controls of the `extension.*` verdicts: each of the sample's buggy variants (BuggyVariants.swift,
/// beside the sample in Examples/SampleExtension) fails the catalog scenario that exposes its bug, with the verdict
/// naming the extension's fault; the sample itself passes the same scenario (`CatalogWithSampleTests`).
extension PhotosExtensionHostTests {
    @Test(arguments: [
        (
            BuggyVariant.neverAcknowledgesFailedJobs, "server-500-permanent-by-default",
            "extension.acknowledges-finished-jobs", "never acknowledged it"
        ),
        (
            .retriesBadServerResponse, "server-500-permanent-by-default",
            "extension.permanent-errors-not-retried", "retried it 3 times, up to the retry limit 3"
        ),
        (
            .ignoresWillTerminate, "willterminate-during-process-jobs",
            "extension.stops-at-will-terminate", "after willTerminate() returned, processJobs() went on: created job-3"
        ),
        (
            .acknowledgesBeforeReadingHeaders, "foreground-success",
            "extension.reads-headers-before-acknowledging", "acknowledged without reading its response headers"
        ),
        (
            .retries401WithStaleToken, "expire-auth-at-resume",
            "extension.refreshes-auth-before-retrying", "retried it with the Authorization the server refused"
        ),
    ])
    func aBuggyVariantFailsWithTheVerdictNamingItsFault(
        variant: BuggyVariant, scenarioName: String, key: String, evidence: String
    ) throws {
        let scenario = try ScenarioFiles.loadFile(Self.catalog + "/\(scenarioName).json").get()
        var options = ScenarioRunOptions()
        options.clientExtension = HostedExtension(variant.type, urlBase: "https://api.example.com")
        let result = ScenarioRunner.run(scenario, options: options)
        #expect(!result.passed)
        let verdict = result.verdicts.first { $0.key == key }
        #expect(verdict?.status == .failed, "\(key): \(verdict.map { "\($0.status) \($0.observed)" } ?? "absent")")
        #expect(
            verdict?.evidence.contains { $0.contains(evidence) } == true,
            "\(verdict?.evidence ?? []) lacks \(evidence)")

        // The sample, with the same scenario, passes the same verdict.
        options.clientExtension = Self.extensionUnderTest
        let sample = ScenarioRunner.run(scenario, options: options)
        #expect(sample.passed, "\(Self.failures(sample))")
        #expect(sample.verdicts.first { $0.key == key }?.status == .passed)
    }
}
