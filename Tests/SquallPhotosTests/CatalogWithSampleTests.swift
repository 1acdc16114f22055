import Foundation
import Harness
import Scenario
import SquallPhotos
import Testing

/// Catalog scenarios with the seed's sample extension as the client's policy (`HostedExtension`), through the
/// proxy's faults, against the reference server: the verdicts are the catalog's own. In the host tests' suite, which
/// is serialized: the sample keeps its app records in one static place.
extension PhotosExtensionHostTests {
    static let catalog =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Scenarios"

    static let extensionUnderTest = HostedExtension(SampleUploadExtension.self, urlBase: "https://api.example.com")

    /// Every catalog scenario that runs in this process (those that kill the client or server need a `squall`
    /// executable built around the extension for their child processes) passes with the sample, or is skipped with
    /// its reason; none fails.
    @Test func everyCatalogScenarioPassesWithTheSampleOrIsSkippedWithItsReason() throws {
        let (scenarios, errors) = ScenarioFiles.loadCatalog(paths: [Self.catalog])
        #expect(errors.isEmpty)
        var passed: [String] = []
        var skipped: [String] = []
        for scenario in scenarios
        where !scenario.events.contains(where: { $0.action.killsClient || $0.action.killsServer }) {
            var options = ScenarioRunOptions()
            options.clientExtension = Self.extensionUnderTest
            let result = ScenarioRunner.run(scenario, options: options)
            if let reason = result.skipReason {
                #expect(reason.hasPrefix("needs the built-in policy"))
                skipped.append(scenario.name)
            } else {
                #expect(result.passed, "\(scenario.name): \(Self.failures(result))")
                if result.passed { passed.append(scenario.name) }
            }
        }
        #expect(passed.count >= 40, "\(passed.count) passed, \(skipped.count) skipped: \(skipped)")
        #expect(skipped.count <= 4, "skipped: \(skipped)")
    }

    /// The scenarios about the run's bearer tokens run with the sample, which gets them from `SquallCredentials`
    /// and refreshes them after a 401, as an app's extension does: each passes, and the extension's refresh before
    /// the retry is judged where a job was refused.
    @Test(arguments: [
        "expire-auth-at-resume", "expired-auth-delayed-transfer", "reset-after-response-bytes",
        "stalled-token-endpoint", "truncate-token-response",
    ])
    func aTokenScenarioRunsWithTheSampleAndPasses(name: String) throws {
        let scenario = try ScenarioFiles.loadFile(Self.catalog + "/\(name).json").get()
        var options = ScenarioRunOptions()
        options.clientExtension = Self.extensionUnderTest
        let result = ScenarioRunner.run(scenario, options: options)
        #expect(result.skipReason == nil, "\(name): skipped: \(result.skipReason ?? "")")
        #expect(result.passed, "\(name): \(Self.failures(result))")
        let refreshed = result.verdicts.first { $0.key == "extension.refreshes-auth-before-retrying" }
        if scenario.expect.contains(where: { $0.key == "job-errors.userAuthenticationRequired" }) {
            #expect(refreshed?.status == .passed, "\(name): \(refreshed.map { "\($0)" } ?? "not judged")")
        }
    }

    /// Scenarios about the built-in policy's knobs or its sign-out are skipped with the reason, never run against an
    /// extension that has none of them.
    @Test(arguments: [
        ("server-503-transient-retried", "the built-in policy's permanent errors (client.permanent-errors)"),
        ("cancellation-halfway", "the built-in policy's sign-out"),
    ])
    func aScenarioForTheBuiltInPolicyIsSkippedWithItsReason(name: String, reason: String) throws {
        let scenario = try ScenarioFiles.loadFile(Self.catalog + "/\(name).json").get()
        var options = ScenarioRunOptions()
        options.clientExtension = Self.extensionUnderTest
        let result = ScenarioRunner.run(scenario, options: options)
        #expect(result.skipReason?.contains(reason) == true, "\(name): \(result.skipReason ?? "not skipped")")
        #expect(result.verdicts.isEmpty, "nothing was run")
    }

    static func failures(_ result: ScenarioResult) -> String {
        let failed = result.verdicts.filter { $0.status != .passed }.map { "\($0.key): \($0.observed)" }
        return "\(failed) \(result.error ?? "")"
    }
}
