import StructuredFields
import Testing

struct SerializerTests {
    private func serialize(_ bareItem: BareItem, _ parameters: Parameters = [:]) throws -> String {
        try StructuredFieldSerializer.serialize(Item(bareItem, parameters: parameters))
    }

    private func code(_ body: () throws -> String) -> StructuredFieldError.Code? {
        #expect(throws: StructuredFieldError.self) { try body() }?.code
    }

    @Test func itemsSerializeInCanonicalForm() throws {
        #expect(try serialize(.integer(-42)) == "-42")
        #expect(try serialize(Build.decimal(1500)) == "1.5")
        #expect(try serialize(Build.decimal(-250)) == "-0.25")
        #expect(try serialize(Build.decimal(3000)) == "3.0")
        #expect(try serialize(Build.decimal(1)) == "0.001")
        #expect(try serialize(.string(#"say "hi" \ bye"#)) == #""say \"hi\" \\ bye""#)
        #expect(try serialize(.token("foo123/456")) == "foo123/456")
        #expect(try serialize(.boolean(false)) == "?0")
        #expect(
            try serialize(.integer(1), ["a": .boolean(true), "b": .boolean(false), "c": .string("x")])
                == #"1;a;b=?0;c="x""#)
    }

    @Test func integerLimitsAreInclusive() throws {
        #expect(try serialize(.integer(999_999_999_999_999)) == "999999999999999")
        #expect(try serialize(.integer(-999_999_999_999_999)) == "-999999999999999")
        #expect(code { try serialize(.integer(1_000_000_000_000_000)) } == .integerOutOfRange)
        #expect(code { try serialize(.integer(-1_000_000_000_000_000)) } == .integerOutOfRange)
        #expect(code { try serialize(.integer(.min)) } == .integerOutOfRange)
    }

    @Test func decimalsBeyondTwelveIntegerDigitsAreRejected() throws {
        #expect(try serialize(Build.decimal(999_999_999_999_999)) == "999999999999.999")
        #expect(code { try serialize(Build.decimal(1_000_000_000_000_000)) } == .decimalOutOfRange)
        #expect(code { try serialize(Build.decimal(.min)) } == .decimalOutOfRange)
    }

    @Test func decimalsFromDoublesRoundToThreeDigitsHalfToEven() throws {
        #expect(StructuredDecimal(0.0625)?.thousandths == 62)
        #expect(StructuredDecimal(0.1875)?.thousandths == 188)
        #expect(StructuredDecimal(-2.00049)?.thousandths == -2000)
        #expect(StructuredDecimal(.infinity) == nil)
        #expect(StructuredDecimal(.nan) == nil)
        #expect(StructuredDecimal(1e30) == nil)
        #expect(try serialize(.decimal(StructuredDecimal(1.23456)!)) == "1.235")
        #expect(StructuredDecimal(thousandths: 4500).doubleValue == 4.5)
        #expect(StructuredDecimal(thousandths: 1) < StructuredDecimal(thousandths: 2))
    }

    @Test(arguments: ["tab\there", "new\nline", "del\u{7F}", "caf\u{E9}", "\u{1F600}", "nul\u{0}"])
    func stringsWithNonPrintableCharactersAreRejected(text: String) {
        #expect(code { try serialize(.string(text)) } == .invalidString)
    }

    @Test(arguments: ["", "1abc", "-a", "a b", "a\"b", "a,b", "a;b", "a=b", "a(b", "caf\u{E9}", "a@b"])
    func malformedTokensAreRejected(token: String) {
        #expect(code { try serialize(.token(token)) } == .invalidToken)
    }

    @Test(arguments: ["", "A", "aA", "aB", "1a", "-a", "a b", "a=", "a\u{E9}", "a/b"])
    func malformedKeysAreRejectedInParametersAndDictionaries(key: String) {
        #expect(code { try serialize(.integer(1), [key: .integer(1)]) } == .invalidKey)
        #expect(
            code { try StructuredFieldSerializer.serialize(FieldDictionary([(key, Build.member(.integer(1)))])) }
                == .invalidKey)
    }

    @Test func dictionaryMembersThatAreTrueOmitTheValue() throws {
        let dictionary: FieldDictionary = [
            "a": Build.member(.boolean(true)),
            "b": Build.member(.boolean(true), ["x": .integer(1)]),
            "c": Build.member(.boolean(false)),
            "d": Build.inner([Build.item(.boolean(true))]),
        ]
        #expect(try StructuredFieldSerializer.serialize(dictionary) == "a, b;x=1, c=?0, d=(?1)")
    }

    @Test func emptyContainersSerializeToTheEmptyString() throws {
        #expect(try StructuredFieldSerializer.serialize(FieldList()) == "")
        #expect(try StructuredFieldSerializer.serialize(FieldDictionary()) == "")
        #expect(try StructuredFieldSerializer.serialize([Build.inner([])] as FieldList) == "()")
    }

    @Test func errorsInNestedValuesSurface() {
        let list: FieldList = [Build.inner([Build.item(.integer(1)), Build.item(.token("9"))])]
        #expect(code { try StructuredFieldSerializer.serialize(list) } == .invalidToken)
        let nested: FieldList = [Build.inner([], ["ok": .string("\u{1}")])]
        #expect(code { try StructuredFieldSerializer.serialize(nested) } == .invalidString)
    }

    @Test func descriptionIsTheSerializedFormOrAnExplanation() {
        #expect(Build.item(.integer(5), ["foo": .token("bar")]).description == "5;foo=bar")
        #expect(BareItem.byteSequence([0x68, 0x69]).description == ":aGk=:")
        #expect(Parameters([("a", .integer(1)), ("b", .boolean(true))]).description == ";a=1;b")
        #expect(([Build.member(.token("a")), Build.inner([])] as FieldList).description == "a, ()")
        #expect(StructuredDecimal(thousandths: -1).description == "-0.001")
        #expect(BareItem.token("").description.hasPrefix("<not serializable"))
    }
}
