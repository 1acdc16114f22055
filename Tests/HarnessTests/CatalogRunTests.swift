import Foundation
import Scenario
import ScenarioReports
import Testing

@testable import Harness

/// `CatalogRun`: what `squall run` does between loading the catalog and printing (selection, repeats and flaky
/// detection, bundle clean-up, reports).
struct CatalogRunTests {
    static func scenario(_ name: String, size: Int64 = 1) -> Scenario {
        Scenario(
            name: name, description: "d", assets: [AssetSpec(name: "a", size: size)],
            expect: [.jobs(state: "succeeded", .all)])
    }

    static func result(_ name: String, passed: Bool = true, notes: [String] = [], bundle: String? = nil)
        -> ScenarioResult
    {
        var result = ScenarioResult(
            name: name, file: nil, description: "d", seed: 1, duration: .milliseconds(5),
            verdicts: [Verdict(key: "jobs", status: passed ? .passed : .failed, expected: "1", observed: "1")],
            bundle: bundle)
        result.notes = notes
        return result
    }

    @Test func selectionFiltersThenShardsBySortedName() {
        let scenarios = ["e", "b-x", "a-x", "d", "c-x"].map { Self.scenario($0) }
        var options = CatalogRunOptions()
        #expect(CatalogRun.select(scenarios, options: options).map(\.name) == ["a-x", "b-x", "c-x", "d", "e"])
        options.filter = "-x"
        #expect(CatalogRun.select(scenarios, options: options).map(\.name) == ["a-x", "b-x", "c-x"])
        options.filter = nil
        var shards: [[String]] = []
        for index in 1...2 {
            options.shard = (index, 2)
            shards.append(CatalogRun.select(scenarios, options: options).map(\.name))
        }
        #expect(shards == [["a-x", "c-x", "e"], ["b-x", "d"]])
    }

    @Test func onFailureRemovesAPassingRunsBundleOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let failing = CatalogRun.discardBundle(of: Self.result("f", passed: false, bundle: folder), capture: .onFailure)
        #expect(failing.bundle == folder)
        let always = CatalogRun.discardBundle(of: Self.result("p", bundle: folder), capture: .always)
        #expect(always.bundle == folder)
        #expect(FileManager.default.fileExists(atPath: folder))
        let passing = CatalogRun.discardBundle(of: Self.result("p", bundle: folder), capture: .onFailure)
        #expect(passing.bundle == nil)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func notesComeOnceEachAndAFlakyScenarioFailsTheRun() {
        let results = [Self.result("a", notes: ["n1", "n2"]), Self.result("b", notes: ["n2", "n3"])]
        #expect(CatalogRun.notes(results) == ["n1", "n2", "n3"])
        let steady = ScenarioRuns(runs: [Self.result("a"), Self.result("a")])
        #expect(CatalogRun.passed([steady]))
        #expect(!CatalogRun.passed([steady, ScenarioRuns(runs: [Self.result("b"), Self.result("b")], flaky: true)]))
        #expect(!CatalogRun.passed([steady, ScenarioRuns(runs: [Self.result("c", passed: false)])]))
    }

    @Test func reportsAreWrittenWhereAsked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let groups = [ScenarioRuns(runs: [Self.result("a")])]
        try CatalogRun.writeReports(groups, elapsed: .seconds(1), json: folder + "/r.json", junit: folder + "/j.xml")
        #expect(try String(contentsOfFile: folder + "/r.json", encoding: .utf8).contains("\"reportVersion\""))
        #expect(try String(contentsOfFile: folder + "/j.xml", encoding: .utf8).contains("<testsuite"))
    }

    /// Two real runs of one small scenario: each repeat has its own bundle folder, and on-failure removes both
    /// passing runs' bundles; equal verdicts are not flaky.
    @Test func repeatsRunEachTimeAndKeepNoPassingBundle() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("repeats-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = CatalogRunOptions()
        options.repeats = 2
        options.capture = .onFailure
        options.runner.keepFolder = folder
        let runs = try #require(CatalogRun.run(Self.scenario("twice", size: 1000), options: options))
        #expect(runs.runs.count == 2)
        #expect(runs.runs.allSatisfy { $0.passed }, "\(runs.runs.map(\.verdicts))")
        #expect(!runs.flaky)
        #expect(runs.runs.allSatisfy { $0.bundle == nil })
        #expect(!FileManager.default.fileExists(atPath: folder + "/run-1/twice"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/run-2/twice"))
    }
}
