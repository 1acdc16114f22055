import Foundation
import Scenario
import Testing

@testable import SquallCLI

struct ValidateCommandTests {
    func squall(_ arguments: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    /// A folder holding `files` (name → contents), removed by the caller.
    func folder(_ files: [String: String]) throws -> String {
        let path = NSTemporaryDirectory() + "squall-validate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: "\(path)/\(name)", atomically: true, encoding: .utf8)
        }
        return path
    }

    func scenario(_ name: String, _ extra: String = "") -> String {
        """
        {"name": "\(name)", "description": "d", "assets": [{"name": "a", "size": "1KiB"}],
         "expect": {"jobs": {"succeeded": "all"}}\(extra)}
        """
    }

    @Test func validFilesAndFoldersExitZero() throws {
        let path = try folder(["one.json": scenario("one"), "two.json": scenario("two"), "schema.json": "{}"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, out, err) = squall(["validate", path])
        #expect(status == 0)
        #expect(out == "2 scenarios valid\n")
        #expect(err == "")
        let (single, singleOut, _) = squall(["validate", "\(path)/one.json"])
        #expect(single == 0)
        #expect(singleOut == "1 scenario valid\n")
    }

    @Test func everyErrorInEveryFileIsPrinted() throws {
        let path = try folder([
            "a.json": scenario("a", #", "seed": "x", "faults": [{"name": "f", "action": "explode"}]"#),
            "b.json": scenario("b", #", "client": {"retry-limt": 1}"#),
            "c.json": scenario("c"),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, out, err) = squall(["validate", path])
        #expect(status == 1)
        #expect(out == "")
        let lines = err.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // Each line: file: JSON path (line L, column C): what was expected and found.
        let pattern = #/^(.+): (\S+) \(line \d+, column \d+\): (.+)$/#
        let parts = lines.dropLast().compactMap { try? pattern.wholeMatch(in: $0) }.map { match in
            (String(match.1), String(match.2), String(match.3))
        }
        #expect(parts.count == 3)
        #expect(
            parts.first ?? ("", "", "") == (
                "\(path)/a.json", "seed", "expected a whole number ≥ 0, found the string \"x\""
            ))
        #expect(parts.dropFirst().first?.1 == "faults[0].action")
        #expect(parts.dropFirst().first?.2.hasPrefix("unknown action \"explode\"") == true)
        #expect(parts.last?.0 == "\(path)/b.json")
        #expect(parts.last?.1 == "client.retry-limt")
        #expect(parts.last?.2.hasPrefix("unknown key in client") == true)
        #expect(lines[3] == "3 errors in 2 files")
    }

    @Test func aMissingPathAndADuplicateNameAreErrors() throws {
        let path = try folder(["a.json": scenario("same"), "b.json": scenario("same")])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, _, err) = squall(["validate", path, "\(path)/nowhere.json"])
        #expect(status == 1)
        #expect(err.contains("\(path)/b.json: name: scenario name \"same\" is already used by \(path)/a.json"))
        #expect(err.contains("\(path)/nowhere.json: no such file or folder"))
        #expect(err.hasSuffix("2 errors in 2 files\n"))
    }

    @Test func noPathIsAUsageMistake() {
        let (status, out, err) = squall(["validate"])
        #expect(status == 2)
        #expect(out == "")
        #expect(err.contains("name at least one scenario file or folder"))
        let (help, helpOut, _) = squall(["validate", "--help"])
        #expect(help == 0)
        #expect(helpOut.contains("Usage: squall validate PATH…"))
    }

    /// A scenario over a loader limit is an error naming the place and the flag; the flag raises the limit, and a
    /// bad value for it is a usage mistake naming it.
    @Test func aLimitNamesItsFlagAndTheFlagRaisesIt() throws {
        let path = try folder([
            "big.json":
                #"{"name": "big", "description": "d", "assets": [{"name": "a", "size": "3GiB"}], "expect": {"attempts": 1}}"#
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, _, err) = squall(["validate", path])
        #expect(status == 1)
        #expect(
            err.contains(
                "big.json: assets[0].size (line 1, column 70): the asset is 3221225472 bytes (3GiB), over the limit of 1073741824 bytes (1GiB) per asset; raise it with --max-asset-size"
            ), "\(err)")
        #expect(err.contains("raise it with --max-total-size"))
        let (raised, out, raisedErr) = squall(["validate", path, "--max-asset-size", "3GiB", "--max-total-size", "4GB"])
        #expect(raised == 0, "\(raisedErr)")
        #expect(out == "1 scenario valid\n")
        let (bad, _, badErr) = squall(["validate", path, "--max-asset-size", "3gib"])
        #expect(bad == 2)
        #expect(badErr.hasPrefix("squall validate: --max-asset-size must be a size such as"))
    }

    /// Each limit flag sets its own limit, in the size, duration or count grammar.
    @Test func everyLimitFlagSetsItsLimit() throws {
        let arguments = try CommandLineParser.parse(
            [
                "--max-asset-size", "2GiB", "--max-total-size", "5GB", "--max-assets", "7", "--max-faults", "8",
                "--max-events", "9", "--max-timeout", "1h",
            ], for: ValidateCommand.spec)
        let limits = try ScenarioLimitOptions.parse(arguments, command: ["validate"])
        var expected = ScenarioLimits()
        expected.assetSize = 2 << 30
        expected.totalSize = 5_000_000_000
        expected.assetCount = 7
        expected.faults = 8
        expected.events = 9
        expected.timeout = .seconds(3600)
        #expect(limits == expected)
        #expect(Set(RunCommand.spec.options.map(\.name)).isSuperset(of: ScenarioLimits.Limit.allCases.map(\.flag)))
        #expect(throws: UsageError.self) {
            try ScenarioLimitOptions.parse(
                try CommandLineParser.parse(["--max-faults", "-1"], for: ValidateCommand.spec), command: ["validate"])
        }
    }
}
