import ProxyTranscript
import Testing

struct TranscriptParseErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var line: String
        var code: TranscriptParseError.Code
        var key: String
        var testDescription: String { line }
    }

    static let open = #""t_us":1,"conn":2,"event":"open""#

    static let cases: [Case] = [
        Case(line: #"{"conn":2,"event":"open","client":"a","listener":"b"}"#, code: .missingKey, key: "t_us"),
        Case(line: "{\(open),\"client\":\"a\"}", code: .missingKey, key: "listener"),
        Case(line: #"{"t_us":1,"conn":2}"#, code: .missingKey, key: "event"),
        Case(line: "{\(open),\"client\":\"a\",\"listener\":\"b\",\"extra\":1}", code: .unknownKey, key: "extra"),
        Case(line: "{\(open),\"client\":\"a\",\"client\":\"a\",\"listener\":\"b\"}", code: .unknownKey, key: "client"),
        Case(line: #"{"t_us":"1","conn":2,"event":"open","client":"a","listener":"b"}"#, code: .wrongType, key: "t_us"),
        Case(
            line: #"{"t_us":1,"conn":null,"event":"open","client":"a","listener":"b"}"#, code: .wrongType, key: "conn"),
        Case(line: "{\(open),\"client\":5,\"listener\":\"b\"}", code: .wrongType, key: "client"),
        Case(line: "{\(open),\"client\":\"a\",\"listener\":[]}", code: .wrongType, key: "listener"),
        Case(line: #"{"t_us":1,"conn":2,"event":"opened"}"#, code: .invalidValue, key: "event"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"close","side":"server","kind":"fin"}"#, code: .invalidValue, key: "side"
        ),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"close","side":"client","kind":"abort"}"#, code: .invalidValue,
            key: "kind"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"tls_failed","leg":"server","reason":"x"}"#, code: .invalidValue,
            key: "leg"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"response_body","exchange":1,"offset":0,"length":-1}"#,
            code: .invalidValue, key: "length"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"request_body","exchange":0,"offset":0,"length":1,"upload_offset":0}"#,
            code: .invalidValue, key: "exchange"),
        Case(
            line:
                #"{"t_us":1,"conn":2,"event":"request_body_dropped","exchange":1,"offset":0,"length":-1,"upload_offset":0}"#,
            code: .invalidValue, key: "length"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"fault","rule":"r","action":"reset","direction":"both","offset":null}"#,
            code: .missingKey, key: "decided_us"),
        Case(
            line:
                #"{"t_us":1,"conn":2,"event":"fault","rule":"r","action":"reset","direction":"both","offset":null,"decided_us":-1}"#,
            code: .invalidValue, key: "decided_us"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"fault_unresolved","rule":"r","exchange":1}"#, code: .missingKey,
            key: "reason"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"request_body","exchange":1,"offset":0,"length":1,"upload_offset":-5}"#,
            code: .invalidValue, key: "upload_offset"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"request_body","exchange":1,"offset":0,"length":1}"#,
            code: .missingKey, key: "upload_offset"),
        Case(
            line:
                #"{"t_us":1,"conn":2,"event":"request","exchange":1,"method":"GET","target":"/","version":"HTTP/11","fields":[]}"#,
            code: .invalidValue, key: "version"),
        Case(
            line:
                #"{"t_us":1,"conn":2,"event":"request","exchange":1,"method":"GET","target":"/","version":"HTTP/1.1","fields":[["a"]]}"#,
            code: .wrongType, key: "fields"),
        Case(
            line:
                #"{"t_us":1,"conn":2,"event":"request","exchange":1,"method":"GET","target":"/","version":"HTTP/1.1","fields":{}}"#,
            code: .wrongType, key: "fields"),
        Case(
            line:
                #"{"t_us":1,"conn":2,"event":"response","exchange":1,"version":"HTTP/1.1","status":42,"reason":"","fields":[]}"#,
            code: .invalidValue, key: "status"),
        Case(
            line: #"{"t_us":1,"conn":2,"event":"fault","rule":"r","action":"reset","direction":"up","offset":null}"#,
            code: .invalidValue, key: "direction"),
    ]

    @Test(arguments: cases)
    func namesTheKey(testCase: Case) {
        #expect {
            try TranscriptEvent(jsonLine: testCase.line)
        } throws: { error in
            guard let error = error as? TranscriptParseError else { return false }
            return error.code == testCase.code && error.key == testCase.key && error.description.contains(testCase.key)
        }
    }

    static let syntaxErrors: [String] = [
        "", "[]", "\"open\"", "{", "{\"t_us\":1,}", "{\"t_us\" 1}", "{\"t_us\":1} x", "{\"t_us\":01}",
        "{\"t_us\":1.5}", "{\"t_us\":1e3}", "{\"t_us\":-}", "{\"t_us\":99999999999999999999}", "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12\"}", "{\"a\":\"\\ud83e\"}", "{\"a\":\"\\udda9\"}", "{\"a\":\"\\ud83e\\u0041\"}",
        "{\"a\":\"raw\nnewline\"}", "{\"a\":\"unterminated}", "{\"a\":tru}", "{\"a\":nul}", "{'a':1}",
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ]

    @Test(arguments: syntaxErrors)
    func rejectsMalformedJSON(line: String) {
        #expect {
            try TranscriptEvent(jsonLine: line)
        } throws: { error in
            (error as? TranscriptParseError)?.code == .syntax
        }
    }
}
