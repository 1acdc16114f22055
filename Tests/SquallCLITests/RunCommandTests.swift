import Foundation
import TestSupport
import Testing

/// `squall run` over scenario files, as CI runs it: exit statuses, console lines, reports, shards.
@Suite struct RunCommandTests {
    static let passing = """
        {"name": "tiny-pass", "description": "d", "seed": 1, "assets": [{"name": "a", "size": 2000}],
         "expect": {"jobs": {"succeeded": "all"}, "server-objects-intact": true}}
        """
    static let failing = """
        {"name": "tiny-fail", "description": "d", "seed": 2, "assets": [{"name": "a", "size": 2000}],
         "expect": {"attempts": 2}}
        """

    func run(_ arguments: [String]) throws -> TLSFixtures.ToolResult {
        try TLSFixtures.runTool(SquallBinaryTests.binary, ["run"] + arguments)
    }

    @Test func passingScenariosExitZeroAndWriteBothReports() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try folder.write(Self.passing, to: "tiny-pass.json")
        let result = try run([folder.path, "--json", folder.file("r.json"), "--junit", folder.file("r.xml")])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        #expect(result.standardOutput.contains("PASS tiny-pass"))
        #expect(result.standardOutput.contains("1 scenario: 1 passed, 0 failed"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("r.json"))))
        #expect(((json as? [String: Any])?["scenarios"] as? [Any])?.count == 1)
        let xml = try String(contentsOfFile: folder.file("r.xml"), encoding: .utf8)
        #expect(xml.contains("<testcase") && xml.contains("tiny-pass"))
    }

    @Test func aFailingExpectationExitsOneWithExpectedAndObserved() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try folder.write(Self.failing, to: "tiny-fail.json")
        let result = try run([folder.path])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("FAIL tiny-fail"))
        #expect(
            result.standardOutput.contains("attempts: expected 2 per job, observed 1 per job"),
            "\(result.standardOutput)")
    }

    /// `--out` keeps the failing scenario's bundle (and says where, with the command that opens it) and removes
    /// the passing one's; `--capture always` keeps both; `--capture never` keeps none.
    @Test(arguments: [
        ([String](), ["tiny-fail"]), (["--capture", "always"], ["tiny-fail", "tiny-pass"]),
        (["--capture", "never"], []),
    ])
    func bundlesFollowTheCaptureMode(flags: [String], kept: [String]) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try folder.write(Self.passing, to: "tiny-pass.json")
        _ = try folder.write(Self.failing, to: "tiny-fail.json")
        let out = folder.file("out")
        let result = try run([folder.path, "--out", out] + flags)
        #expect(result.status == 1)
        let bundles = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        #expect(bundles.sorted() == kept)
        if kept.contains("tiny-fail") {
            #expect(result.standardOutput.contains("bundle: \(out)/tiny-fail"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains("open:   tshark -r \(out)/tiny-fail/decrypted.pcap -Y http"))
            let files = try FileManager.default.contentsOfDirectory(atPath: out + "/tiny-fail")
            for name in [
                "decrypted.pcap", "keylog.txt", "transcript.jsonl", "transcript.har", "ledger.json", "server.log",
                "report.json",
            ] {
                #expect(files.contains(name), "\(name) missing from \(files)")
            }
        } else {
            #expect(!result.standardOutput.contains("bundle:"))
        }
    }

    /// With --repeat each run keeps its own bundle, so one run does not overwrite (or delete) another's.
    @Test func repeatedRunsKeepABundleEach() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try folder.write(Self.failing, to: "tiny-fail.json")
        let out = folder.file("out")
        let result = try run([folder.path, "--out", out, "--repeat", "2"])
        #expect(result.status == 1)
        for run in ["run-1", "run-2"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(run)/tiny-fail/report.json"), "\(run)")
        }
        #expect(result.standardOutput.contains("bundle: \(out)/run-1/tiny-fail"), "\(result.standardOutput)")
    }

    @Test func anInvalidFileIsReportedWithItsPathAndNothingRuns() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let bad = try folder.write(#"{"name": "x", "description": "d", "assets": [], "expect": {}}"#, to: "x.json")
        let result = try run([bad])
        #expect(result.status == 2)
        #expect(result.standardError.contains(bad + ": assets"), "\(result.standardError)")
        #expect(!result.standardOutput.contains("PASS"))
    }

    @Test func shardsPartitionTheCatalogAndTheFilterSelects() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        for index in 1...4 {
            _ = try folder.write(
                Self.passing.replacingOccurrences(of: "tiny-pass", with: "tiny-\(index)"), to: "t\(index).json")
        }
        var seen: [String] = []
        for shard in 1...2 {
            let result = try run([folder.path, "--shard", "\(shard)/2"])
            #expect(result.status == 0)
            seen += result.standardOutput.split(separator: "\n").compactMap { line in
                line.hasPrefix("PASS ") ? String(line.split(separator: " ")[1]) : nil
            }
        }
        #expect(seen.sorted() == ["tiny-1", "tiny-2", "tiny-3", "tiny-4"])
        let filtered = try run([folder.path, "--filter", "tiny-3"])
        #expect(filtered.standardOutput.contains("PASS tiny-3"))
        #expect(!filtered.standardOutput.contains("tiny-1"))
    }

    @Test(arguments: [
        (["--shard", "3/2"], "--shard must be I/N"),
        (["--repeat", "0"], "--repeat must be a count"),
        (["--capture", "always"], "--capture always needs --out DIR"),
        (["--seed", "-1"], "--seed must be a whole number"),
    ])
    func usageMistakesExitTwo(arguments: [String], message: String) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}
