import Foundation
import Testing

@testable import Scenario

/// `ScenarioLimits`: what a scenario file may ask for. Each limit holds at its value and fails one past it, with
/// an error naming the JSON path (line and column), the limit and the flag that raises it.
struct ScenarioLimitsTests {
    func errors(_ text: String, limits: ScenarioLimits = ScenarioLimits()) -> [ScenarioError] {
        switch ScenarioLoader.load(Array(text.utf8), file: "t.json", limits: limits) {
        case .success: []
        case .failure(let failure): failure.errors
        }
    }

    /// A scenario with `assets` (JSON array text) and `extra` top-level keys.
    static func scenario(assets: String = #"[{"name": "a", "size": 1}]"#, _ extra: String = "") -> String {
        #"{"name": "x", "description": "d", "assets": \#(assets), "expect": {"attempts": 1}\#(extra)}"#
    }

    /// The issue's two measurements: a 1000 GiB asset, and 200 MiB × 10,000. Each error is on its own path, with
    /// the line and column of the value it names.
    @Test func theMeasuredRunawaysAreErrorsNamingThePlaceTheLimitAndTheFlag() {
        let huge = errors(Self.scenario(assets: #"[{"name": "a", "size": "1000GiB"}]"#))
        #expect(huge.map(\.path) == ["assets[0].size", "assets[0]"])
        #expect(huge.allSatisfy { $0.code == .overLimit })
        #expect(huge.first?.column == 68)
        #expect(
            huge.first?.description
                == "t.json: assets[0].size (line 1, column 68): the asset is 1073741824000 bytes (1000GiB), over the "
                + "limit of 1073741824 bytes (1GiB) per asset; raise it with --max-asset-size")
        #expect(huge.last?.message.contains("over the limit of 2147483648 bytes (2GiB) per scenario") == true)
        #expect(huge.last?.message.hasSuffix("raise it with --max-total-size") == true)

        let many = errors(Self.scenario(assets: #"[{"name": "a", "size": "200MiB", "count": 10000}]"#))
        #expect(many.map(\.path) == ["assets[0]", "assets[0]"])
        #expect(many.first?.message.contains("2097152000000 bytes (about 1.9TiB)") == true)
        #expect(many.last?.message.contains("10000 asset files, over the limit of 1000") == true)
        #expect(many.last?.message.hasSuffix("raise it with --max-assets") == true)
    }

    /// Every limit at its default: the value itself loads, one more is the one error, on the path and naming the
    /// flag of that limit.
    @Test(arguments: [
        (
            ScenarioLimits.Limit.assetSize, #"[{"name": "a", "size": "1GiB"}]"#,
            #"[{"name": "a", "size": 1073741825}]"#,
            "", "assets[0].size"
        ),
        (
            .totalSize, #"[{"name": "a", "size": "1GiB", "count": 2}]"#,
            #"[{"name": "a", "size": "1GiB"}, {"name": "b", "size": "1GiB"}, {"name": "c", "size": 1}]"#, "",
            "assets[2]"
        ),
        (
            .assetCount, #"[{"name": "a", "size": 1, "count": 1000}]"#,
            #"[{"name": "a", "size": 1, "count": 999}, {"name": "b", "size": 1, "count": 2}]"#, "", "assets[1]"
        ),
        (.timeout, "", "", #", "timeout": "10m""#, "timeout"),
        (.faults, "", "", "faults:100", "faults[100]"),
        (.events, "", "", "events:100", "events[100]"),
    ])
    func eachLimitHoldsAtItsValueAndFailsPastIt(
        limit: ScenarioLimits.Limit, within: String, past: String, extra: String, path: String
    ) {
        let (accepted, refused) = Self.pair(within: within, past: past, extra: extra)
        #expect(errors(accepted).isEmpty, "\(errors(accepted))")
        let found = errors(refused)
        #expect(found.map(\.path) == [path])
        #expect(found.first?.code == .overLimit)
        #expect(found.first?.line != nil)
        #expect(found.first?.message.hasSuffix("raise it with \(limit.flag)") == true, "\(found)")
    }

    /// The scenario texts at a limit and one past it: assets as given, or `extra` as a top-level key, where
    /// `faults:N` and `events:N` stand for N entries (N + 1 past it) and a timeout for one a second longer.
    static func pair(within: String, past: String, extra: String) -> (String, String) {
        if !within.isEmpty { return (scenario(assets: within), scenario(assets: past)) }
        if extra.hasPrefix("faults:") || extra.hasPrefix("events:") {
            let count = Int(extra.dropFirst(7))!
            let entry =
                extra.hasPrefix("faults")
                ? #"{"name": "f#", "action": "close", "optional": true}"#
                : #"{"event": "network-up", "at": "1s"}"#
            let key = extra.hasPrefix("faults") ? "faults" : "events"
            let list = { (count: Int) in
                (0..<count).map { entry.replacingOccurrences(of: "#", with: "\($0)") }.joined(separator: ", ")
            }
            return (scenario(#", "\#(key)": [\#(list(count))]"#), scenario(#", "\#(key)": [\#(list(count + 1))]"#))
        }
        return (scenario(extra), scenario(#", "timeout": "601s""#))
    }

    /// Assets an `add-assets` event adds count toward the scenario's bytes and files, and are held to the size
    /// of one asset: the error names the event.
    @Test func addedAssetsCountTowardTheLimits() {
        let added = #", "events": [{"event": "add-assets", "at": "1s", "name": "late", "size": "2GiB"}]"#
        let found = errors(Self.scenario(added))
        #expect(found.map(\.path) == ["events[0].size", "events[0]"])
        #expect(found.first?.message.contains("--max-asset-size") == true)
        #expect(found.last?.message.contains("2147483649 bytes") == true)
        var raised = ScenarioLimits()
        raised.assetSize = 2 << 30
        raised.totalSize = 3 << 30
        #expect(errors(Self.scenario(added), limits: raised).isEmpty)
    }

    /// Limits are values: raised, the runaway loads; lowered, a small scenario is refused, with the limit's own
    /// value in the message.
    @Test func limitsAreValuesTheCallerSets() {
        var raised = ScenarioLimits()
        raised.assetSize = 1 << 40
        raised.totalSize = 1 << 40
        raised.timeout = .seconds(7200)
        #expect(
            errors(Self.scenario(assets: #"[{"name": "a", "size": "1000GiB"}]"#, #", "timeout": "2h""#), limits: raised)
                .isEmpty)
        var lowered = ScenarioLimits()
        lowered.assetSize = 100
        lowered.faults = 0
        let found = errors(
            Self.scenario(assets: #"[{"name": "a", "size": 101}]"#, #", "faults": [{"name": "f", "action": "close"}]"#),
            limits: lowered)
        #expect(found.map(\.path) == ["faults[0]", "assets[0].size"])
        #expect(found.last?.message.contains("over the limit of 100 bytes per asset") == true)
    }

    /// A file with other mistakes still has its limits checked: every error is listed at once.
    @Test func limitsAreCheckedBesideOtherMistakes() {
        let text = #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": "5GiB"}], "timeout": "1h"}"#
        let found = errors(text)
        #expect(Set(found.map(\.path)) == ["expect", "timeout", "assets[0].size", "assets[0]"])
    }
}
