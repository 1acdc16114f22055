import FaultEngine
import Testing

struct FaultActionTests {
    @Test(arguments: [
        (#""action": "reset""#, FaultAction.reset),
        (#""action": "close""#, .close),
        (#""action": "refuse""#, .refuse),
        (#""action": "stall""#, .stall(duration: nil, thenClose: false)),
        (#""action": "stall", "duration": "2s""#, .stall(duration: .seconds(2), thenClose: false)),
        (#""action": "stall", "duration": "2s", "then": "close""#, .stall(duration: .seconds(2), thenClose: true)),
        (#""action": "latency", "latency": "250ms""#, .latency(.milliseconds(250), jitter: .zero)),
        (#""action": "latency", "latency": "1s", "jitter": "50ms""#, .latency(.seconds(1), jitter: .milliseconds(50))),
        (#""action": "bandwidth", "rate": "64KiB""#, .bandwidth(bytesPerSecond: 65536)),
        (#""action": "bandwidth", "rate": 1000"#, .bandwidth(bytesPerSecond: 1000)),
        (
            #""action": "slice", "size": 100, "variation": 10, "delay": "1ms""#,
            .slice(size: 100, variation: 10, delay: .milliseconds(1))
        ),
        (#""action": "slice", "size": "1KiB""#, .slice(size: 1024, variation: 0, delay: .zero)),
        (#""action": "limit", "bytes": "8MiB""#, .limit(bytes: 8 << 20)),
        (#""action": "limit", "bytes": 0"#, .limit(bytes: 0)),
        (#""action": "slow-close", "delay": "3s""#, .slowClose(delay: .seconds(3))),
        (
            #""action": "respond", "status": 503, "headers": {"Retry-After": "1", "A": "b"}, "body": "busy""#,
            .respond(
                FaultResponse(
                    status: 503, fields: [.init(name: "A", value: "b"), .init(name: "Retry-After", value: "1")],
                    body: "busy"))
        ),
        (#""action": "respond", "status": 413"#, .respond(FaultResponse(status: 413))),
        (#""action": "expire-auth""#, .expireAuth(challenge: "Bearer")),
        (
            #""action": "expire-auth", "challenge": "Bearer error=\"invalid_token\"""#,
            .expireAuth(challenge: #"Bearer error="invalid_token""#)
        ),
        (#""action": "strip-interim""#, .stripInterim),
        (#""action": "drop-response""#, .dropResponse),
        (#""action": "delay-response", "duration": "5s""#, .delayResponse(.seconds(5))),
        (
            #""action": "rewrite-header", "header": "Upload-Offset", "value": "0""#,
            .rewriteHeader(name: "Upload-Offset", value: "0")
        ),
        (
            #""action": "rewrite-header", "header": "Location", "value": null"#,
            .rewriteHeader(name: "Location", value: nil)
        ),
        (#""action": "rewrite-header", "header": "Location""#, .rewriteHeader(name: "Location", value: nil)),
        (#""action": "truncate-response", "after": "1KB""#, .truncateResponse(afterBytes: 1000)),
    ])
    func decodesEveryAction(_ fields: String, _ expected: FaultAction) throws {
        let rule = try decodeRule(#"{"name": "f", "# + fields + "}")
        #expect(rule.action == expected)
        #expect(fields.hasPrefix(#""action": "\#(rule.action.name)""#))
    }

    @Test(arguments: [
        (#""action": "stall", "duration": "soon""#, FaultError.Code.invalidDuration, "duration"),
        (#""action": "stall", "then": "explode""#, .invalidValue, "then"),
        (#""action": "stall", "then": "close""#, .notApplicable, "then"),
        (#""action": "latency""#, .missingKey, "latency"),
        (#""action": "latency", "latency": 250"#, .wrongType, "latency"),
        (#""action": "latency", "latency": "250""#, .invalidDuration, "latency"),
        (#""action": "bandwidth", "rate": 0"#, .invalidValue, "rate"),
        (#""action": "bandwidth", "rate": "0KiB""#, .invalidValue, "rate"),
        (#""action": "bandwidth", "rate": -5"#, .invalidSize, "rate"),
        (#""action": "bandwidth", "rate": "fast""#, .invalidSize, "rate"),
        (#""action": "bandwidth", "rate": true"#, .wrongType, "rate"),
        (#""action": "bandwidth""#, .missingKey, "rate"),
        (#""action": "slice", "size": 0"#, .invalidValue, "size"),
        (#""action": "slice", "size": 10, "variation": 10"#, .invalidValue, "size"),
        (#""action": "limit", "bytes": -1"#, .invalidSize, "bytes"),
        (#""action": "limit", "bytes": "-1KiB""#, .invalidSize, "bytes"),
        (#""action": "slow-close""#, .missingKey, "delay"),
        (#""action": "respond""#, .missingKey, "status"),
        (#""action": "respond", "status": 99"#, .invalidValue, "status"),
        (#""action": "respond", "status": "503""#, .wrongType, "status"),
        (#""action": "respond", "status": 503, "headers": {"Retry-After": 1}"#, .wrongType, "headers.Retry-After"),
        (#""action": "respond", "status": 503, "headers": ["Retry-After"]"#, .wrongType, "headers"),
        (#""action": "respond", "status": 503, "body": 5"#, .wrongType, "body"),
        (#""action": "expire-auth", "challenge": 1"#, .wrongType, "challenge"),
        (#""action": "delay-response""#, .missingKey, "duration"),
        (#""action": "rewrite-header""#, .missingKey, "header"),
        (#""action": "rewrite-header", "header": """#, .invalidValue, "header"),
        (#""action": "rewrite-header", "header": "A", "value": 5"#, .wrongType, "value"),
        (#""action": "truncate-response", "after": -3"#, .invalidSize, "after"),
        (#""action": "truncate-response""#, .missingKey, "after"),
        (#""action": "refuse", "match": {"method": "GET"}"#, .notApplicable, "match"),
        (#""action": "reset", "rate": 5"#, .unknownKey, "rate"),
        (#""action": "strip-interim", "duration": "1s""#, .unknownKey, "duration"),
    ])
    func rejectsInvalidActions(_ fields: String, _ code: FaultError.Code, _ path: String) throws {
        let error = try #require(decodingError(#"{"name": "f", "# + fields + "}"))
        #expect(error.code == code, "\(error)")
        #expect(error.path == path, "\(error)")
    }

    @Test func timingAndDirectionRules() {
        #expect(FaultAction.reset.timing(direction: .both) == .anytime)
        #expect(FaultAction.refuse.timing(direction: .both) == .connectionOpen)
        #expect(FaultAction.rewriteHeader(name: "A", value: nil).timing(direction: .upstream) == .requestHead)
        #expect(FaultAction.rewriteHeader(name: "A", value: nil).timing(direction: .downstream) == .finalResponse)
        #expect(FaultAction.stripInterim.timing(direction: .both) == .interimResponse)
        #expect(FaultAction.truncateResponse(afterBytes: 1).timing(direction: .both) == .responseBody)
        #expect(FaultAction.latency(.zero, jitter: .zero).takesDirection)
        #expect(!FaultAction.reset.takesDirection)
        #expect(FaultAction.expireAuth(challenge: "Bearer").name == "expire-auth")
    }
}
