import Foundation
import Testing

/// The built `squall` executable, run as a user would: exit statuses and streams, not just return values.
struct SquallBinaryTests {
    /// `squall` sits beside the test bundle in the build folder (`swift build --build-tests` builds both).
    static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("squall").path
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, errors)
    }

    @Test func binaryExists() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "no squall at \(Self.binary)")
    }

    @Test func unknownFlagExitsWithStatusTwo() throws {
        let (status, out, err) = try run(["ca", "show", "--bogus"])
        #expect(status == 2)
        #expect(out.isEmpty)
        #expect(err.contains("unknown option '--bogus'"))
    }

    @Test func missingValueExitsWithStatusTwo() throws {
        let (status, _, err) = try run(["run", "--seed"])
        #expect(status == 2)
        #expect(err.contains("option '--seed' needs a value"))
    }

    @Test func failureExitsWithStatusOne() throws {
        let missing = NSTemporaryDirectory() + "squall-no-ca-\(UUID().uuidString)"
        let (status, _, err) = try run(["ca", "show", "--dir", missing])
        #expect(status == 1)
        #expect(err.contains("does not exist"))
    }

    /// The smoke check was removed: its ground (TLS through the terminating proxy to the reference server, the
    /// content intact) is the catalog's `foreground-success`.
    @Test func theRemovedSmokeFlagIsAnUnknownOption() throws {
        let (status, _, err) = try run(["run", "--smoke"])
        #expect(status == 2)
        #expect(err.contains("unknown option '--smoke'"))
    }

    @Test func aScenarioRunThroughAPipePassesWithoutColour() throws {
        let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios").path
        let (status, out, _) = try run(["run", catalog + "/foreground-success.json"], environment: ["NO_COLOR": "1"])
        #expect(status == 0)
        #expect(out.contains("PASS foreground-success"))
        #expect(out.contains("1 scenario: 1 passed, 0 failed"))
        #expect(!out.contains("\u{1B}["))
    }
}
