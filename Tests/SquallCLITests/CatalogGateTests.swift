import Foundation
import Testing

/// The test command's catalog gate (Tools/determinism.sh, Tools/load-check.sh) fails when a scenario fails, and
/// passes a catalog whose scenarios all pass: run here on a small catalog of its own (SQUALL_CATALOG).
@Suite(.serialized) struct CatalogGateTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let passing = """
        {"name": "gate-passes", "description": "one small upload", "seed": 1,
         "assets": [{"name": "doc", "size": "4KiB"}], "expect": {"jobs": {"succeeded": "all"}}}
        """
    /// Expects two attempts of an upload that takes one: it cannot pass.
    static let failing = """
        {"name": "gate-fails", "description": "an expectation that cannot hold", "seed": 2,
         "assets": [{"name": "doc", "size": "4KiB"}], "expect": {"attempts": 2}}
        """

    /// Runs `script` on a catalog of `scenarios`; returns its exit status and output.
    static func gate(_ script: String, _ scenarios: [String]) throws -> (Int32, String) {
        let folder = NSTemporaryDirectory() + "squall-gate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (index, text) in scenarios.enumerated() {
            try text.write(toFile: "\(folder)/\(index).json", atomically: false, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent(script).path, SquallBinaryTests.binary]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SQUALL_CATALOG": folder, "DETERMINISM_RUNS": "2",
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test(arguments: ["Tools/determinism.sh", "Tools/load-check.sh"])
    func aCatalogThatPassesPasses(script: String) throws {
        let (status, output) = try Self.gate(script, [Self.passing])
        #expect(status == 0, "\(output)")
    }

    /// Negative control: one failing scenario fails the gate, which names it.
    @Test(arguments: ["Tools/determinism.sh", "Tools/load-check.sh"])
    func oneFailingScenarioFailsTheGate(script: String) throws {
        let (status, output) = try Self.gate(script, [Self.passing, Self.failing])
        #expect(status == 1, "\(output)")
        #expect(output.contains("FAIL gate-fails"), "\(output)")
        #expect(output.contains("attempts: expected 2"), "\(output)")
    }
}
