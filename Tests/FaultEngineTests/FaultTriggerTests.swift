import FaultEngine
import Testing

struct FaultTriggerTests {
    @Test(arguments: [
        (#""on-match""#, FaultTrigger.onMatch),
        (#"{"after": "2s"}"#, .after(.seconds(2))),
        (#"{"at-offset": "40%"}"#, .atOffset(.fraction(numerator: 40, denominator: 100))),
        (#"{"at-offset": "3MiB"}"#, .atOffset(.bytes(3 << 20))),
        (#"{"at-offset": 1234}"#, .atOffset(.bytes(1234))),
        (#"{"after-response-bytes": "1KiB"}"#, .afterResponseBytes(1024)),
        (#"{"after-response-bytes": 0}"#, .afterResponseBytes(0)),
        (#"{"window": {"from": "2s", "until": "5s"}}"#, .window(from: .seconds(2), until: .seconds(5))),
        (#"{"window": {"until": "1m"}}"#, .window(from: .zero, until: .seconds(60))),
    ])
    func decodesEveryTrigger(_ trigger: String, _ expected: FaultTrigger) throws {
        let rule = try decodeRule(#"{"name": "t", "action": "reset", "trigger": "# + trigger + "}")
        #expect(rule.trigger == expected)
        #expect(trigger.contains(expected.name))
    }

    @Test(arguments: [
        (#""sometimes""#, FaultError.Code.unknownTrigger, "trigger"),
        (#"{}"#, .unknownTrigger, "trigger"),
        (#"{"after": "1s", "at-offset": 5}"#, .unknownTrigger, "trigger"),
        (#"{"when": "1s"}"#, .unknownKey, "trigger.when"),
        (#"5"#, .wrongType, "trigger"),
        (#"{"after": 2}"#, .wrongType, "trigger.after"),
        (#"{"after": "2 seconds"}"#, .invalidDuration, "trigger.after"),
        (#"{"at-offset": "140%"}"#, .invalidValue, "trigger.at-offset"),
        (#"{"at-offset": -1}"#, .invalidSize, "trigger.at-offset"),
        (#"{"at-offset": "-1"}"#, .invalidSize, "trigger.at-offset"),
        (#"{"at-offset": true}"#, .wrongType, "trigger.at-offset"),
        (#"{"after-response-bytes": -1}"#, .invalidSize, "trigger.after-response-bytes"),
        (#"{"window": {"from": "5s", "until": "2s"}}"#, .invalidValue, "trigger.window"),
        (#"{"window": {"from": "5s"}}"#, .missingKey, "trigger.window.until"),
        (#"{"window": {"from": "1s", "until": "2s", "every": "1s"}}"#, .unknownKey, "trigger.window.every"),
        (#"{"window": "2s"}"#, .wrongType, "trigger.window"),
    ])
    func rejectsInvalidTriggers(_ trigger: String, _ code: FaultError.Code, _ path: String) throws {
        let error = try #require(decodingError(#"{"name": "t", "action": "reset", "trigger": "# + trigger + "}"))
        #expect(error.code == code, "\(error)")
        #expect(error.path == path, "\(error)")
    }

    @Test(arguments: [
        (#""action": "reset", "match": {"method": "GET"}, "trigger": {"at-offset": "40%"}"#, "percentage"),
        (#""action": "reset", "match": {"method": "HEAD"}, "trigger": {"at-offset": 10}"#, "offset"),
        (#""action": "latency", "latency": "1s", "direction": "downstream", "trigger": {"at-offset": 1}"#, "upstream"),
        (#""action": "strip-interim", "trigger": {"at-offset": "40%"}"#, "on-match"),
        (#""action": "drop-response", "trigger": {"after": "1s"}"#, "on-match"),
        (#""action": "expire-auth", "trigger": {"after-response-bytes": 5}"#, "on-match"),
        (#""action": "refuse", "trigger": {"at-offset": 5}"#, "on-match"),
    ])
    func rejectsTriggersTheRuleCannotUse(_ fields: String, _ mentioned: String) throws {
        let error = try #require(decodingError(#"{"name": "t", "# + fields + "}"))
        #expect(error.code == .notApplicable, "\(error)")
        #expect(error.path.hasPrefix("trigger."), "\(error)")
        #expect(error.detail.contains(mentioned), "\(error)")
    }

    @Test func percentageOnUploadMethodsIsAccepted() throws {
        for method in ["PATCH", "POST", "PUT"] {
            let json =
                #"{"name": "t", "action": "reset", "match": {"method": ""# + method
                + #""}, "trigger": {"at-offset": "40%"}}"#
            #expect(try decodeRule(json).match.method?.rawValue == method)
        }
    }
}
