import SquallCore
import Testing

struct JSONValueParsingTests {
    private func error(_ text: String, options: JSONValue.ParseOptions = .init()) -> JSONError? {
        do {
            _ = try JSONValue.parse(text, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue.parse(#" {"a": [null, true, false, 1, -2, 2.5, "x"], "b": {}} "#)
        #expect(
            value
                == .object([
                    "a": .array([
                        .null, .bool(true), .bool(false), .integer(1), .integer(-2), .number(2.5), .string("x"),
                    ]),
                    "b": .object([:]),
                ]))
    }

    @Test func aDuplicateKeyIsRefusedWithItsPathLineAndColumn() throws {
        let found = try #require(error("{\n  \"faults\": [{\"name\": \"a\",\n    \"name\": \"b\"}]}"))
        #expect(found.code == .duplicateKey)
        #expect(found.path == "faults[0].name")
        #expect(found.line == 3)
        #expect(found.column == 5)
        #expect(
            found.description
                == #"faults[0].name (line 3, column 5): the key "name" appears twice in this object; keep one"#)
    }

    @Test func aSyntaxErrorNamesTheNestedPathLineAndColumn() throws {
        let found = try #require(error("{\"a\": {\"b\": [1, 2,\n tru]}}"))
        #expect(found.code == .syntax)
        #expect(found.path == "a.b[2]")
        #expect(found.line == 2)
        #expect(found.column == 2)
        #expect(found.detail.contains("did you mean true?"))
    }

    @Test func aDocumentKnowsWhereEachValueStarts() throws {
        let document = try JSONDocument(parsing: Array("{\"a\": [1,\n  {\"b\": true}],\n\"c\": \"x\"}".utf8))
        #expect(document.value["c"] == .string("x"))
        #expect(document.position(of: "") == JSONDocument.Position(line: 1, column: 1))
        #expect(document.position(of: "a") == JSONDocument.Position(line: 1, column: 7))
        #expect(document.position(of: "a[1].b") == JSONDocument.Position(line: 2, column: 9))
        #expect(document.position(of: "c") == JSONDocument.Position(line: 3, column: 6))
        // A path the document lacks (a missing key) is placed at its nearest enclosing value.
        #expect(document.position(of: "a[1].missing") == JSONDocument.Position(line: 2, column: 3))
        #expect(document.position(of: "nothing.here") == JSONDocument.Position(line: 1, column: 1))
    }

    @Test func descriptionsPutThePathThenThePlace() {
        #expect(JSONError(.syntax, path: "", line: 1, column: 3, "x").description == "line 1, column 3: x")
        #expect(JSONError(.syntax, path: "a[0]", line: 2, column: 1, "x").description == "a[0] (line 2, column 1): x")
        #expect(JSONError(.wrongType, path: "a", "x").description == "a: x")
        #expect(JSONError(.wrongType, path: "", "x").description == "x")
    }

    @Test(arguments: ["{} x", "1 2", "[1]]", "{\"a\": 1}}", "null,"])
    func trailingBytesAreRefused(text: String) throws {
        let found = try #require(error(text))
        #expect(found.code == .syntax)
        #expect(found.detail.contains("after the value"))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "-", "1.", "1e", ".5", "'a'", "{a:1}", "\"\\x\"", "\"\\u12\"",
        "\"raw\ttab\"", "\"unterminated", "nul", "[1 2]",
    ])
    func malformedTextIsASyntaxError(text: String) {
        #expect(error(text)?.code == .syntax)
    }

    @Test func bigIntegersStayExact() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONValue.parse("9223372036854775808") == .largeInteger(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse("18446744073709551615") == .largeInteger(.max))
        #expect(try JSONValue.parse("18446744073709551616") == .number(18_446_744_073_709_551_616))
        #expect(try JSONValue.parse("1099511627776") == .integer(1 << 40))
        #expect(try JSONValue.parse("3.0") == .integer(3))
        #expect(try JSONValue.parse("1e3") == .integer(1000))
        #expect(try JSONValue.parse("18446744073709551615").unsignedInteger(at: "seed") == .max)
    }

    @Test func integersOnlyRefusesFractionsAndOutOfRangeNumbers() {
        let options = JSONValue.ParseOptions(integersOnly: true)
        for text in ["1.5", "1e3", "3.0", "9223372036854775808"] {
            #expect(error(text, options: options)?.code == .syntax, "\(text)")
        }
    }

    @Test func unicodeEscapesAndSurrogatePairsDecode() throws {
        #expect(try JSONValue.parse(#""\u0041\u00e9\u20ac""#) == .string("Aé€"))
        #expect(try JSONValue.parse(#""\ud83e\udda9""#) == .string("🦩"))
        #expect(try JSONValue.parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try JSONValue.parse("\"é🦩\"") == .string("é🦩"))
    }

    @Test(arguments: [#""\ud83e""#, #""\udda9""#, #""\ud83e\u0041""#, #""\ud83ex""#])
    func loneSurrogatesAreRefused(text: String) {
        #expect(error(text)?.code == .syntax)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    /// A file saved with a byte order mark or in UTF-16, or a word outside quotes, says so instead of
    /// "unexpected character".
    @Test(
        arguments: [
            ([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], 1, "a UTF-8 byte order mark; save the file as UTF-8 without one"),
            ([0xFF, 0xFE, 0x7B, 0x00], 1, "a UTF-16 byte order mark; save the file as UTF-8"),
            (
                Array("{\"a\": ".utf8) + [0xC3, 0xA9, 0x7D], 7,
                "a byte outside ASCII (0xC3) where a value must start; text belongs in a string, and the file must be UTF-8"
            ),
            (
                Array("{\"a\": *}".utf8), 7,
                "unexpected character; expected a value (object, array, string, number, true, false, null)"
            ),
        ] as [([UInt8], Int, String)])
    func aBadFirstByteSaysWhatItIs(bytes: [UInt8], column: Int, detail: String) {
        do {
            _ = try JSONValue.parse(bytes)
            Issue.record("parsed \(bytes)")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.column == column)
            #expect(error.detail == detail)
        }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        let options = JSONValue.ParseOptions(maxDepth: 4)
        #expect(
            try JSONValue.parse("[[[[1]]]]", options: options) == .array([.array([.array([.array([.integer(1)])])])]))
        let found = try #require(error("[[[[[1]]]]]", options: options))
        #expect(found.code == .syntax)
        #expect(found.path == "[0][0][0][0]")
        #expect(found.detail == "nested more than 4 deep")
        let deep = try #require(error(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)))
        #expect(deep.code == .syntax && deep.column == 65)
        // A deep path is shortened in the error: the first four steps, an ellipsis, the last two.
        #expect(deep.path == "[0][0][0][0]…[0][0]")
    }

    @Test func aDottedPathWithIndicesFindsAValueOrNothing() throws {
        let document = try JSONValue.parse(
            #"{"access_token": "a", "data": {"tokens": [{"value": "b"}, {"value": "c"}]}}"#)
        #expect(document.value(atPath: "access_token") == .string("a"))
        #expect(document.value(atPath: "data.tokens[1].value") == .string("c"))
        #expect(document.value(atPath: "data.tokens[2].value") == nil)
        #expect(document.value(atPath: "data.missing") == nil)
        #expect(document.value(atPath: "access_token.deeper") == nil)
    }
}
