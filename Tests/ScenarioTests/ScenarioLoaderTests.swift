import FaultEngine
import Foundation
import Harness
import Testing

@testable import Scenario

struct ScenarioLoaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A minimal valid scenario with `extra` spliced into its top-level object.
    static func scenario(_ extra: String = "", name: String = "x") -> String {
        """
        {"name": "\(name)", "description": "d", "assets": [{"name": "a", "size": 1}],
         "expect": {"jobs": {"succeeded": "all"}}\(extra.isEmpty ? "" : ", \(extra)")}
        """
    }

    func errors(_ text: String) -> [ScenarioError] {
        switch ScenarioLoader.load(Array(text.utf8), file: "t.json") {
        case .success: []
        case .failure(let failure): failure.errors
        }
    }

    @Test func everyKeyReadsIntoTheModel() throws {
        let path = Self.fixtures.appendingPathComponent("valid/full.json").path
        let scenario = try ScenarioFiles.loadFile(path).get()
        #expect(scenario.name == "full-example")
        #expect(scenario.file == path)
        #expect(scenario.seed == 42)
        #expect(scenario.timeout == .seconds(120))

        var server = ServerSpec()
        server.interop = [3, 6, 8]
        server.maxSize = 1_000_000_000
        server.maxAppendSize = 1_048_576
        server.maxAge = .seconds(3600)
        server.tokenTTL = .seconds(5)
        server.resumable = false
        server.progressInterval = 16 * 1024
        server.progressLimit = 4
        server.progressSpacing = .milliseconds(500)
        server.upstream = "https://uploads.example.com/files"
        #expect(scenario.server == server)

        var client = ClientSpec()
        client.interop = 6
        client.interopGiven = true
        client.retryLimit = 2
        client.inflightLimit = 4
        client.appendSize = 256 * 1024
        client.resumeAttempts = 3
        client.developerMode = false
        client.refreshAuth = false
        client.permanentErrors = ["badServerResponse"]
        #expect(scenario.client == client)

        #expect(
            scenario.assets == [
                AssetSpec(name: "photo", size: 3 << 20, count: 2), AssetSpec(name: "video", size: 1000),
            ])
        #expect(scenario.assetCount == 6)

        #expect(scenario.faults.map(\.name) == ["cut-at-40", "slow", "busy"])
        #expect(scenario.faults[0].trigger == .atOffset(.fraction(numerator: 40, denominator: 100)))
        #expect(scenario.faults[0].times == 1)
        #expect(scenario.faults[0].probability == 0.5)
        #expect(scenario.faults[1].action == .bandwidth(bytesPerSecond: 65536))
        #expect(scenario.faults[1].direction == .upstream)
        #expect(scenario.faults[1].optional)
        let busy =
            #"{"name": "busy", "match": {"nth-request": 2}, "action": "respond", "status": 503, "#
            + #""headers": {"Retry-After": "1"}, "body": "busy"}"#
        #expect(scenario.faults[2] == (try FaultRule.parse(busy)))

        #expect(
            scenario.events == [
                ScenarioEvent(action: .killClient, trigger: .time(.seconds(2))),
                ScenarioEvent(
                    action: .switchNetwork,
                    trigger: .progress(.fraction(numerator: 25, denominator: 100), asset: "photo")),
                ScenarioEvent(
                    action: .addAssets(AssetSpec(name: "late", size: 2000, count: 3)), trigger: .time(.seconds(1))),
                ScenarioEvent(action: .relaunchClient, trigger: .progress(.bytes(4096), asset: nil)),
            ])

        #expect(
            scenario.expect == [
                .jobs(state: "failed", .exactly(0)), .jobs(state: "succeeded", .all), .acknowledgedOnce(true),
                .attempts(.range(min: nil, max: 2)), .retries(.range(min: 0, max: 1)), .retryLimitRespected(true),
                .resumptions(.range(min: 1, max: nil)), .appendsAtServerOffset(true),
                .retransmittedBytes(.range(min: nil, max: 0)), .restartsFromZero(.exactly(0)),
                .peakInFlight(.range(min: nil, max: 2)), .authRefreshes(.range(min: 1, max: nil)),
                .requests(method: "OPTIONS", .range(min: nil, max: 1)), .serverObjectsIntact(true),
                .serverResourceIDsRecorded(false), .jobErrors(code: "networkConnectionLost", .range(min: 1, max: nil)),
                .processJobsResults(result: "failure", .exactly(0)), .wallTime(max: .seconds(10)),
            ])
    }

    @Test func absentKeysTakeTheModelsDefaults() throws {
        let scenario = try ScenarioLoader.load(Array(Self.scenario().utf8), file: nil).get()
        #expect(scenario.seed == 1)
        #expect(scenario.timeout == .seconds(30))
        #expect(scenario.server == ServerSpec())
        #expect(scenario.client == ClientSpec())
        #expect(scenario.faults.isEmpty)
        #expect(scenario.events.isEmpty)
        #expect(scenario.file == nil)
        let plain = try ScenarioLoader.load(Array(Self.scenario(#""client": {"interop": "none"}"#).utf8), file: nil)
            .get()
        #expect(plain.client.interop == nil)
    }

    /// One mistake of each kind: the splice, the code, the path and words the message must hold.
    static let mistakes: [(String, ScenarioError.Code, String, String)] = [
        (#""colour": "red""#, .unknownKey, "colour", "unknown key in a scenario"),
        (#""client": {"retry-limt": 3}"#, .unknownKey, "client.retry-limt", "expected one of: interop, retry-limit"),
        (#""seed": "42""#, .wrongType, "seed", #"expected a whole number ≥ 0, found the string "42""#),
        (#""timeout": "2sec""#, .invalidValue, "timeout", #"found "2sec""#),
        (#""timeout": 30"#, .wrongType, "timeout", "expected a duration string"),
        (#""server": {"max-size": "8mb"}"#, .invalidValue, "server.max-size", #"found "8mb""#),
        (#""client": {"append-size": -5}"#, .invalidValue, "client.append-size", "negative size -5"),
        (
            #""faults": [{"name": "f", "action": "explode"}]"#, .unknownName, "faults[0].action",
            #"unknown action "explode""#
        ),
        (#""faults": [{"name": "f", "action": "bandwidth", "rate": 0}]"#, .invalidValue, "faults[0].rate", "above 0"),
        (
            #""faults": [{"name": "f", "action": "reset", "rate": 1}]"#, .unknownKey, "faults[0].rate",
            #"a "reset" fault"#
        ),
        (
            #""faults": [{"name": "f", "action": "reset"}, {"name": "f", "action": "close"}]"#, .duplicate,
            "faults[1].name", #"fault name "f" is used twice"#
        ),
        (
            #""events": [{"event": "explode", "at": "1s"}]"#, .unknownName, "events[0].event",
            #"unknown event "explode""#
        ),
        (
            #""events": [{"event": "kill-client"}]"#, .missingKey, "events[0].at",
            #"expected "at", "at-progress" or "at-jobs-created""#
        ),
        (
            #""events": [{"event": "network-down", "at-jobs-created": 2}]"#, .invalidValue,
            "events[0].at-jobs-created", #""at-jobs-created" goes only with "terminate-client""#
        ),
        (
            #""events": [{"event": "terminate-client", "at-jobs-created": 2}, {"event": "kill-client", "at": "1s"}]"#,
            .invalidValue, "events[0].at-jobs-created",
            "needs the client in-process, and the kill-client event at events[1]"
        ),
        (
            #""events": [{"event": "terminate-client", "at-jobs-created": 0}]"#, .invalidValue,
            "events[0].at-jobs-created", "1"
        ),
        (
            #""events": [{"event": "kill-client", "at-progress": "10%", "asset": "b"}]"#, .unknownName,
            "events[0].asset", #"unknown asset "b"; expected one of: a"#
        ),
        (#""events": [{"event": "kill-client", "at": "1s", "at-progress": 5}]"#, .invalidValue, "events[0].at", "both"),
        (
            #""server": {"interop": [2]}"#, .invalidValue, "server.interop[0]",
            "expected a whole number in 3…10, found 2"
        ),
        (#""client": {"interop": 11}"#, .invalidValue, "client.interop", "in 3…10, found 11"),
        (
            #""client": {"permanent-errors": ["oops"]}"#, .unknownName, "client.permanent-errors[0]",
            #"unknown error code "oops""#
        ),
        (#""server": {"upstream": "example.com"}"#, .invalidValue, "server.upstream", "http:// or https://"),
        (#""server": {"progress-limit": -1}"#, .invalidValue, "server.progress-limit", "found -1"),
        (#""server": {"progress-spacing": 1}"#, .wrongType, "server.progress-spacing", "expected a duration string"),
    ]

    @Test(arguments: mistakes) func eachMistakeNamesFilePathAndWhatWasExpected(
        splice: String, code: ScenarioError.Code, path: String, words: String
    ) {
        let found = errors(Self.scenario(splice))
        #expect(found.count == 1)
        let error = found.first
        #expect(error?.code == code)
        #expect(error?.file == "t.json")
        #expect(error?.path == path)
        #expect(error?.message.contains(words) == true, "\(error?.message ?? "no error")")
    }

    /// Mistakes in the required keys and the expectations (replacing the minimal scenario's own).
    static let documents: [(String, ScenarioError.Code, String, String)] = [
        (
            #"{"description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": 1}}"#, .missingKey,
            "name", "missing"
        ),
        (
            #"{"name": "Bad_Name", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": 1}}"#,
            .invalidValue, "name", #"found "Bad_Name""#
        ),
        (
            #"{"name": "x", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": 1}}"#, .missingKey,
            "description", "missing"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [], "expect": {"attempts": 1}}"#, .invalidValue, "assets",
            "at least one asset"
        ),
        (#"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}]}"#, .missingKey, "expect", "missing"),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {}}"#, .invalidValue,
            "expect", "at least one expectation"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"speed": 1}}"#,
            .unknownName, "expect.speed", #"unknown expectation "speed""#
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"jobs": {"done": 1}}}"#,
            .unknownName, "expect.jobs.done", #"unknown job state "done""#
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"job-errors": {"x": 1}}}"#,
            .unknownName, "expect.job-errors.x", "unknown error code"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"process-jobs-results": {"done": 1}}}"#,
            .unknownName, "expect.process-jobs-results.done", "unknown processJobs result"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"requests": {"FETCH": 1}}}"#,
            .unknownName, "expect.requests.FETCH", "unknown method"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": -1}}"#,
            .invalidValue, "expect.attempts", "found -1"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": "many"}}"#,
            .wrongType, "expect.attempts", #"found the string "many""#
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": {"min": 3, "max": 1}}}"#,
            .invalidValue, "expect.attempts", "min 3 is greater than max 1"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": {"least": 1}}}"#,
            .unknownKey, "expect.attempts.least", "expected min, max"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": -1}], "expect": {"attempts": 1}}"#,
            .invalidValue, "assets[0].size", "negative size -1"
        ),
        (#"[1, 2]"#, .wrongType, "", "expected a scenario object, found an array"),
        (#"{"name": "x""#, .unreadable, "", "not valid JSON"),
        (
            #"{"name": "x", "name": "y", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": 1}}"#,
            .duplicate, "name", #"the key "name" appears twice in this object; keep one"#
        ),
        ("{\n\"name\": x}", .unreadable, "name", "not valid JSON: unexpected character"),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": 1}} {}"#,
            .unreadable, "", "not valid JSON: unexpected bytes after the value"
        ),
        (
            #"{"name": "x", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"attempts": 1},"#
                + #" "faults": [{"name": "f", "action": "reset", "action": "close"}]}"#,
            .duplicate, "faults[0].action", #"the key "action" appears twice"#
        ),
    ]

    @Test(arguments: documents) func eachDocumentMistakeIsReported(
        text: String, code: ScenarioError.Code, path: String, words: String
    ) {
        let found = errors(text)
        #expect(found.count == 1)
        #expect(found.first?.code == code)
        #expect(found.first?.path == path)
        #expect(found.first?.message.contains(words) == true, "\(found.first?.message ?? "no error")")
    }

    /// Every mistake names its line and column: a syntax error or duplicate key where the parser stopped, any
    /// other at the value its path names (a missing key at its object).
    @Test func mistakesNameTheirLineAndColumn() throws {
        let text = """
            {"name": "x", "description": "d",
             "client": {"retry-limit": "3"},
             "assets": [{"name": "a"}], "expect": {"attempts": 1}}
            """
        let found = errors(text)
        #expect(found.map(\.path) == ["client.retry-limit", "assets[0].size"])
        #expect(found.map(\.line) == [2, 3])
        #expect(found.map(\.column) == [28, 13])
        #expect(found.first?.description.hasPrefix("t.json: client.retry-limit (line 2, column 28): expected") == true)
        let duplicate = try #require(errors("{\"name\": \"x\",\n \"name\": \"y\"}").first)
        #expect(duplicate.line == 2 && duplicate.column == 2)
        #expect(
            duplicate.description
                == #"t.json: name (line 2, column 2): the key "name" appears twice in this object; keep one"#)
    }

    @Test func everyMistakeInAFileIsReported() throws {
        let text = """
            {"name": "Bad", "seed": -1, "colour": 1, "assets": [{"name": "a", "size": "1 MiB"}],
             "client": {"retry-limit": "3", "speed": 1},
             "faults": [{"name": "f", "action": "explode"}, {"name": "g", "action": "latency"}],
             "events": [{"event": "kill-client", "at": "soon"}],
             "expect": {"attempts": {"min": 2, "max": 1}, "wall-time": "10s"}}
            """
        let result = ScenarioLoader.load(Array(text.utf8), file: "many.json")
        guard case .failure(let failure) = result else {
            Issue.record("loaded a broken scenario")
            return
        }
        #expect(
            failure.errors.map(\.path) == [
                "colour", "description", "name", "seed", "client.speed", "client.retry-limit", "assets[0].size",
                "faults[0].action", "faults[1].latency", "events[0].at", "expect.attempts", "expect.wall-time",
            ])
        #expect(failure.errors.allSatisfy { $0.file == "many.json" })
        let lines = failure.description.split(separator: "\n")
        #expect(lines.count == 12)
        #expect(
            lines.first
                == "many.json: colour (line 1, column 39): unknown key in a scenario; expected one of: name, description, seed, timeout, server, client, assets, faults, events, expect"
        )
    }
}
