import Foundation
import Testing

@testable import Harness

struct SmokeCheckTests {
    @Test func passesEndToEndOnLoopback() {
        var configuration = SmokeCheck.Configuration()
        configuration.bodySize = 1024 * 1024 + 17
        configuration.seed = 42
        let report = SmokeCheck.run(configuration)
        for step in report.steps where !step.passed {
            Issue.record("\(step.name): \(step.detail)")
        }
        #expect(report.passed)
        #expect(report.steps.map(\.name) == ["exchange", "tls", "104", "201", "sha-256", "relay", "keylog"])
        #expect(!FileManager.default.fileExists(atPath: report.artifactsDirectory))
    }

    @Test(arguments: [3, 8])
    func sendsTheConfiguredInteropVersion(version: Int) {
        var configuration = SmokeCheck.Configuration()
        configuration.bodySize = 1000
        configuration.interopVersion = version
        let report = SmokeCheck.run(configuration)
        #expect(report.passed)
        #expect(report.steps.first { $0.name == "104" }?.passed == true)
    }

    @Test func keepsArtifactsWhenAsked() throws {
        let directory = NSTemporaryDirectory() + "squall-smoke-keep-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = SmokeCheck.Configuration()
        configuration.bodySize = 0
        configuration.artifactsDirectory = directory
        let report = SmokeCheck.run(configuration)
        #expect(report.passed)
        #expect(FileManager.default.fileExists(atPath: directory + "/ca/ca.pem"))
        let keyLog = try String(contentsOfFile: directory + "/keylog.txt", encoding: .utf8)
        #expect(keyLog.contains("CLIENT_HANDSHAKE_TRAFFIC_SECRET "))
    }
}
