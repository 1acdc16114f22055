import FaultEngine
import Foundation
import Testing

/// `FaultRule: Encodable`: the JSON it writes is the scenario vocabulary, and decoding it gives the rule back.
struct FaultRuleEncodingTests {
    static func encode(_ rule: FaultRule) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(rule), as: UTF8.self)
    }

    /// One rule per action, written as a scenario file would.
    static let everyAction: [String] = [
        #"{"name": "a", "action": "reset"}"#,
        #"{"name": "a", "action": "close"}"#,
        #"{"name": "a", "action": "refuse"}"#,
        #"{"name": "a", "action": "strip-interim"}"#,
        #"{"name": "a", "action": "drop-response"}"#,
        #"{"name": "a", "action": "stall"}"#,
        #"{"name": "a", "action": "stall", "duration": "2s", "then": "close", "direction": "upstream"}"#,
        #"{"name": "a", "action": "latency", "latency": "250ms", "jitter": "50ms"}"#,
        #"{"name": "a", "action": "latency", "latency": "1500us", "direction": "downstream"}"#,
        #"{"name": "a", "action": "bandwidth", "rate": "64KiB", "direction": "upstream"}"#,
        #"{"name": "a", "action": "bandwidth", "rate": 1000}"#,
        #"{"name": "a", "action": "slice", "size": 100, "variation": 10, "delay": "1ms"}"#,
        #"{"name": "a", "action": "limit", "bytes": "1MiB"}"#,
        #"{"name": "a", "action": "limit", "bytes": 0}"#,
        #"{"name": "a", "action": "slow-close", "delay": "1m"}"#,
        #"{"name": "a", "action": "respond", "status": 503, "headers": {"Retry-After": "1", "X-A": "b"}, "body": "x"}"#,
        #"{"name": "a", "action": "respond", "status": 413}"#,
        #"{"name": "a", "action": "expire-auth"}"#,
        #"{"name": "a", "action": "expire-auth", "challenge": "Bearer realm=\"x\""}"#,
        #"{"name": "a", "action": "delay-response", "duration": "3s"}"#,
        #"{"name": "a", "action": "rewrite-header", "header": "Upload-Offset", "value": "0", "direction": "upstream"}"#,
        #"{"name": "a", "action": "rewrite-header", "header": "Location"}"#,
        #"{"name": "a", "action": "truncate-response", "after": "1KB"}"#,
        #"{"name": "a", "action": "reset-stream"}"#,
        #"{"name": "a", "action": "reset-stream", "code": "CANCEL", "trigger": {"at-offset": "40%"}}"#,
        #"{"name": "a", "action": "reset-stream", "code": "0x42"}"#,
        #"{"name": "a", "action": "window-stall"}"#,
        #"{"name": "a", "action": "window-stall", "duration": "2s", "scope": "connection"}"#,
        #"{"name": "a", "action": "goaway"}"#,
        #"{"name": "a", "action": "goaway", "code": "ENHANCE_YOUR_CALM", "last-stream": "before", "graceful": false}"#,
        #"{"name": "a", "action": "goaway", "last-stream": 7}"#,
        #"{"name": "a", "action": "settings", "settings": {"max-concurrent-streams": 1}}"#,
        #"{"name": "a", "action": "settings", "settings": {"initial-window-size": 0, "max-frame-size": 16384}}"#,
        #"{"name": "a", "action": "ping-timeout"}"#,
        #"{"name": "a", "action": "ping-timeout", "duration": "30s"}"#,
    ]

    /// One rule per trigger and match criterion, with the rule-level keys.
    static let everyTrigger: [String] = [
        #"{"name": "t", "action": "reset", "trigger": "on-match"}"#,
        #"{"name": "t", "action": "reset", "trigger": {"after": "2s"}}"#,
        #"{"name": "t", "action": "reset", "trigger": {"at-offset": "40%"}, "match": {"method": "PATCH"}}"#,
        #"{"name": "t", "action": "reset", "trigger": {"at-offset": "12.5%"}}"#,
        #"{"name": "t", "action": "reset", "trigger": {"at-offset": "0.000001%"}}"#,
        #"{"name": "t", "action": "reset", "trigger": {"at-offset": 3145728}}"#,
        #"{"name": "t", "action": "reset", "trigger": {"at-offset": "3MB"}}"#,
        #"{"name": "t", "action": "close", "trigger": {"after-response-bytes": "1KiB"}}"#,
        #"{"name": "t", "action": "strip-interim", "trigger": {"window": {"from": "2s", "until": "5s"}}}"#,
        #"{"name": "t", "action": "reset", "trigger": {"window": {"until": "500ms"}}}"#,
        #"""
        {"name": "t", "action": "reset", "times": 2, "probability": 0.25, "optional": true,
         "match": {"method": "PATCH", "path": "/uploads/*", "header": {"name": "Authorization", "value": "Bearer *"},
                   "interop": 6, "nth-connection": 2, "nth-request": 3}}
        """#,
        #"{"name": "t", "action": "reset", "match": {"header": {"name": "Upload-Complete"}}}"#,
    ]

    @Test(arguments: everyAction + everyTrigger)
    func decodingTheEncodingGivesTheRuleBack(json: String) throws {
        let rule = try decodeRule(json)
        let encoded = try Self.encode(rule)
        #expect(try decodeRule(encoded) == rule, "\(encoded)")
    }

    @Test func aResetStreamsCodeIsWrittenByName() throws {
        #expect(try decodeRule(#"{"name": "r", "action": "reset-stream", "code": 8}"#).action == .resetStream(code: 8))
        #expect(
            try Self.encode(decodeRule(#"{"name": "r", "action": "reset-stream", "code": "cancel"}"#))
                == #"{"action":"reset-stream","code":"CANCEL","name":"r"}"#)
        #expect(
            try Self.encode(decodeRule(#"{"name": "r", "action": "reset-stream", "code": "INTERNAL_ERROR"}"#))
                == #"{"action":"reset-stream","name":"r"}"#)
        #expect(throws: (any Error).self) {
            try decodeRule(#"{"name": "r", "action": "reset-stream", "code": "PLEASE_STOP"}"#)
        }
    }

    @Test func defaultsAreLeftOut() throws {
        let rule = try decodeRule(#"{"name": "cut", "action": "reset", "probability": 1, "optional": false}"#)
        #expect(try Self.encode(rule) == #"{"action":"reset","name":"cut"}"#)
    }

    @Test func unitsAreWrittenAsTheVocabularyWritesThem() throws {
        let rule = try FaultRule(
            name: "slow", trigger: .atOffset(.fraction(numerator: 125, denominator: 1000)),
            action: .latency(.milliseconds(1500), jitter: .seconds(120)), direction: .upstream)
        #expect(
            try Self.encode(rule)
                == #"{"action":"latency","direction":"upstream","jitter":"2m","latency":"1500ms","name":"slow","#
                + #""trigger":{"at-offset":"12.5%"}}"#)
        let bandwidth = try FaultRule(name: "b", action: .bandwidth(bytesPerSecond: 65_537))
        #expect(try Self.encode(bandwidth) == #"{"action":"bandwidth","name":"b","rate":65537}"#)
        let limit = try FaultRule(name: "l", action: .limit(bytes: 8 << 20))
        #expect(try Self.encode(limit) == #"{"action":"limit","bytes":"8MiB","name":"l"}"#)
    }

    @Test func aRewriteHeaderDirectionIsWrittenOnlyWhenNotDownstream() throws {
        let down = try FaultRule(name: "r", action: .rewriteHeader(name: "A", value: nil))
        #expect(try Self.encode(down) == #"{"action":"rewrite-header","header":"A","name":"r"}"#)
        let up = try FaultRule(name: "r", action: .rewriteHeader(name: "A", value: "1"), direction: .upstream)
        #expect(try Self.encode(up).contains(#""direction":"upstream""#))
    }

    @Test func aRuleWithAnUnwritableDurationFailsToEncode() throws {
        let rule = try FaultRule(name: "n", action: .delayResponse(.nanoseconds(10)))
        #expect(throws: EncodingError.self) { try Self.encode(rule) }
    }
}
