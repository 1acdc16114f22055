import FaultEngine
import Foundation
import Testing

/// Decodes one fault from JSON text, as a scenario loader would.
func decodeRule(_ json: String) throws -> FaultRule {
    try FaultRule.parse(json)
}

/// The `FaultError` decoding `json` throws, or nil when it decodes (or fails otherwise).
func decodingError(_ json: String) -> FaultError? {
    do {
        _ = try decodeRule(json)
        return nil
    } catch {
        return error as? FaultError
    }
}

struct FaultRuleTests {
    @Test func decodesAFullRuleWithDefaults() throws {
        let rule = try decodeRule(#"{"name": "cut", "action": "reset"}"#)
        #expect(rule.name == "cut")
        #expect(rule.match == FaultMatch())
        #expect(rule.trigger == .onMatch)
        #expect(rule.action == .reset)
        #expect(rule.direction == .both)
        #expect(rule.times == nil)
        #expect(rule.probability == 1)
        #expect(!rule.optional)
    }

    @Test func decodesEveryRuleKey() throws {
        let rule = try decodeRule(
            #"""
            {"name": "cut-at-40", "match": {"method": "PATCH"}, "trigger": {"at-offset": "40%"},
             "action": "limit", "bytes": "1KiB", "direction": "upstream", "times": 2, "probability": 0.5,
             "optional": true}
            """#)
        #expect(rule.match.method == .patch)
        #expect(rule.trigger == .atOffset(.fraction(numerator: 40, denominator: 100)))
        #expect(rule.action == .limit(bytes: 1024))
        #expect(rule.direction == .upstream)
        #expect(rule.times == 2)
        #expect(rule.probability == 0.5)
        #expect(rule.optional)
    }

    /// Faults are decoded strictly: a key given twice is refused (neither copy wins), with its path and place.
    @Test func aDuplicateKeyIsRefusedWithItsPath() throws {
        let error = try #require(decodingError(#"{"name": "x", "action": "limit", "bytes": 1, "bytes": 2}"#))
        #expect(error.code == .duplicateKey)
        #expect(error.path == "bytes")
        #expect(error.detail == #"at line 1, column 46: the key "bytes" appears twice in this object; keep one"#)
        #expect(decodingError(#"{"name": "x", "action": "reset"} x"#)?.code == .syntax)
    }

    @Test func decodesAListAndNamesTheElementInErrors() throws {
        let rules = try FaultRule.parseList(#"[{"name": "a", "action": "close"}, {"name": "b", "action": "refuse"}]"#)
        #expect(rules.map(\.action) == [.close, .refuse])
        let bad = #"[{"name": "a", "action": "close"}, {"name": "b", "action": "close", "probability": 2}]"#
        #expect {
            try FaultRule.parseList(bad)
        } throws: { error in
            (error as? FaultError)?.path == "[1].probability" && (error as? FaultError)?.code == .invalidValue
        }
    }

    @Test(arguments: [
        (#"{"name": "x", "action": "reset", "colour": "red"}"#, FaultError.Code.unknownKey, "colour"),
        (#"{"name": "x", "action": "reset", "jitter": "1ms"}"#, .unknownKey, "jitter"),
        (#"{"name": "x"}"#, .missingKey, "action"),
        (#"{"action": "reset"}"#, .missingKey, "name"),
        (#"{"name": "", "action": "reset"}"#, .invalidValue, "name"),
        (#"{"name": 5, "action": "reset"}"#, .wrongType, "name"),
        (#"{"name": "x", "action": 1}"#, .wrongType, "action"),
        (#"{"name": "x", "action": "explode"}"#, .unknownAction, "action"),
        (#"{"name": "x", "action": "reset", "times": "once"}"#, .wrongType, "times"),
        (#"{"name": "x", "action": "reset", "times": 0}"#, .invalidValue, "times"),
        (#"{"name": "x", "action": "reset", "times": 1.5}"#, .wrongType, "times"),
        (#"{"name": "x", "action": "reset", "probability": 1.01}"#, .invalidValue, "probability"),
        (#"{"name": "x", "action": "reset", "probability": -0.1}"#, .invalidValue, "probability"),
        (#"{"name": "x", "action": "reset", "probability": "half"}"#, .wrongType, "probability"),
        (#"{"name": "x", "action": "reset", "optional": "yes"}"#, .wrongType, "optional"),
        (#"{"name": "x", "action": "reset", "direction": "upstream"}"#, .notApplicable, "direction"),
        (#"{"name": "x", "action": "latency", "latency": "1ms", "direction": "sideways"}"#, .invalidValue, "direction"),
        (
            #"{"name": "x", "action": "rewrite-header", "header": "A", "direction": "both"}"#, .notApplicable,
            "direction"
        ),
        (#"{"name": "x", "action": "reset", "match": []}"#, .wrongType, "match"),
        (#"{"name": "x", "action": "settings"}"#, .missingKey, "settings"),
        (#"{"name": "x", "action": "settings", "settings": {}}"#, .missingKey, "settings"),
        (#"{"name": "x", "action": "settings", "settings": 1}"#, .wrongType, "settings"),
        (#"{"name": "x", "action": "settings", "settings": {"enable-push": 1}}"#, .unknownKey, "settings.enable-push"),
        (
            #"{"name": "x", "action": "settings", "settings": {"max-frame-size": 1024}}"#, .invalidValue,
            "settings.max-frame-size"
        ),
        (
            #"{"name": "x", "action": "settings", "settings": {"initial-window-size": 2147483648}}"#, .invalidValue,
            "settings.initial-window-size"
        ),
        (#"{"name": "x", "action": "ping-timeout", "duration": "soon"}"#, .invalidDuration, "duration"),
        (#"[1]"#, .wrongType, ""),
    ])
    func rejectsInvalidRules(_ json: String, _ code: FaultError.Code, _ path: String) throws {
        let error = try #require(decodingError(json))
        #expect(error.code == code)
        #expect(error.path == path)
        #expect(!error.detail.isEmpty)
    }

    @Test func programmaticRulesAreValidatedToo() {
        #expect(throws: FaultError.self) { try FaultRule(name: "x", action: .bandwidth(bytesPerSecond: 0)) }
        #expect(throws: FaultError.self) { try FaultRule(name: "x", action: .reset, probability: .nan) }
        #expect(throws: Never.self) { try FaultRule(name: "x", action: .bandwidth(bytesPerSecond: 1)) }
    }

    @Test func perConnectionScopeFollowsActionMatchAndTrigger() throws {
        #expect(try FaultRule(name: "a", action: .latency(.milliseconds(5), jitter: .zero)).armsPerConnection)
        #expect(try FaultRule(name: "b", trigger: .after(.seconds(1)), action: .reset).armsPerConnection)
        #expect(try !FaultRule(name: "c", match: FaultMatch(method: .patch), action: .reset).armsPerConnection)
        #expect(try !FaultRule(name: "d", trigger: .atOffset(.bytes(5)), action: .reset).armsPerConnection)
        #expect(try !FaultRule(name: "e", action: .respond(FaultResponse(status: 503))).armsPerConnection)
    }
}
