import Foundation
import Scenario
import TestSupport
import Testing

@testable import Harness

/// `squall run --capture on-failure`: the decrypted capture is a flight recorder, so a passing scenario's never
/// reaches the disk and a failing one's holds its traffic.
@Suite(.serialized) struct FlightRecorderBundleTests {
    static func foregroundSuccess() throws -> Scenario {
        let (loaded, errors) = ScenarioFiles.loadCatalog(paths: [DebugBundleTests.catalog + "/foreground-success.json"])
        #expect(errors.isEmpty)
        return try #require(loaded.first)
    }

    static func captureSize(_ result: ScenarioResult) throws -> Int {
        let bundle = try #require(result.bundle)
        let attributes = try FileManager.default.attributesOfItem(atPath: bundle + "/" + DebugBundle.decryptedCapture)
        return try #require(attributes[.size] as? Int)
    }

    @Test func aPassingScenarioWritesNoPacketAndAFailingOneItsTraffic() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        var options = ScenarioRunOptions(keepFolder: folder.path + "/passing")
        options.bundleCapture = .onFailure
        let passing = ScenarioRunner.run(try Self.foregroundSuccess(), options: options)
        #expect(passing.passed)
        // The pcap header alone: 24 bytes.
        #expect(try Self.captureSize(passing) == 24)

        var failing = try Self.foregroundSuccess()
        failing.expect.append(.attempts(.exactly(2)))
        options.keepFolder = folder.path + "/failing"
        let failed = ScenarioRunner.run(failing, options: options)
        #expect(!failed.passed)
        let bundle = try #require(failed.bundle)
        let path = bundle + "/" + DebugBundle.decryptedCapture
        #expect(try Tshark.problems(path) == [])
        let methods = try Tshark.values(path, filter: "http.request", "http.request.method")
        #expect(methods.contains("POST"))
    }

    @Test func withCaptureAlwaysAPassingScenarioKeepsItsTraffic() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        var options = ScenarioRunOptions(keepFolder: folder.path)
        options.bundleCapture = .always
        let result = ScenarioRunner.run(try Self.foregroundSuccess(), options: options)
        #expect(result.passed)
        #expect(try Self.captureSize(result) > 100_000)
    }
}
