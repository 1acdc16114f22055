import StructuredFields
import Testing

struct DictionaryTests {
    private func parse(_ text: String) throws -> FieldDictionary {
        try StructuredFieldParser.parseDictionary(text)
    }

    @Test func rfcExampleOfStringAndByteSequenceMembers() throws {
        let dictionary = try parse(#"en="Applepie", da=:w4ZibGV0w6ZydGUK:"#)
        #expect(dictionary.keys == ["en", "da"])
        #expect(dictionary["en"] == Build.member(.string("Applepie")))
        #expect(dictionary["da"]?.byteSequence == Array("Æbletærte\n".utf8))
    }

    @Test func rfcExampleOfBareKeysBeingTrue() throws {
        let dictionary = try parse("a=?0, b, c; foo=bar")
        let expected: FieldDictionary = [
            "a": Build.member(.boolean(false)),
            "b": Build.member(.boolean(true)),
            "c": Build.member(.boolean(true), ["foo": .token("bar")]),
        ]
        #expect(dictionary == expected)
    }

    @Test func rfcExampleOfADecimalAndAnInnerList() throws {
        let dictionary = try parse("rating=1.5, feelings=(joy sadness)")
        #expect(dictionary["rating"] == Build.member(Build.decimal(1500)))
        #expect(dictionary["feelings"] == Build.inner([Build.item(.token("joy")), Build.item(.token("sadness"))]))
    }

    @Test func rfcExampleMixingItemsAndInnerListsWithParameters() throws {
        let dictionary = try parse("a=(1 2), b=3, c=4;aa=bb, d=(5 6);valid")
        #expect(dictionary.keys == ["a", "b", "c", "d"])
        #expect(dictionary["c"] == Build.member(.integer(4), ["aa": .token("bb")]))
        #expect(
            dictionary["d"]
                == Build.inner([Build.item(.integer(5)), Build.item(.integer(6))], ["valid": .boolean(true)]))
    }

    @Test func duplicateKeysKeepFirstPositionAndLastValue() throws {
        let dictionary = try parse("a=1, b=2, a=(3)")
        #expect(dictionary.keys == ["a", "b"])
        #expect(dictionary["a"] == Build.inner([Build.item(.integer(3))]))
    }

    @Test func keysMayUseEveryAllowedCharacter() throws {
        let dictionary = try parse("*=1, a-b_c.d*9=2")
        #expect(dictionary.keys == ["*", "a-b_c.d*9"])
    }

    @Test func severalFieldLinesAreJoinedAndDuplicatesResolvedAcrossThem() throws {
        let dictionary = try StructuredFieldParser.parseDictionary(lines: ["a=1, b=2", "a=3"])
        #expect(dictionary.keys == ["a", "b"])
        #expect(dictionary["a"]?.integer == 3)
    }

    @Test func emptyInputIsTheEmptyDictionaryAndMutationKeepsOrder() throws {
        var dictionary = try parse(" ")
        #expect(dictionary.isEmpty)
        dictionary["z"] = Build.member(.integer(1))
        dictionary["y"] = Build.member(.integer(2))
        dictionary["z"] = Build.member(.integer(3))
        #expect(dictionary.keys == ["z", "y"])
        dictionary["z"] = nil
        #expect(dictionary.keys == ["y"])
        #expect(dictionary["z"] == nil)
    }

    @Test(arguments: [
        ("A=1", StructuredFieldError.Code.invalidKey, 0),
        ("a=1, B=2", .invalidKey, 5),
        ("1=2", .invalidKey, 0),
        ("-a=1", .invalidKey, 0),
        ("aA=1", .unexpectedCharacter, 1),
        ("a=1,", .trailingComma, 4),
        ("a=", .unexpectedEndOfInput, 2),
        ("a==1", .unexpectedCharacter, 2),
        ("a = 1", .unexpectedCharacter, 2),
        ("a=1 b=2", .unexpectedCharacter, 4),
        ("a=(1 2", .unexpectedEndOfInput, 6),
        ("aé=1", .unexpectedCharacter, 1),
        ("a;", .unexpectedEndOfInput, 2),
    ])
    func invalidDictionariesFailWithTheirCodeAndOffset(input: String, code: StructuredFieldError.Code, offset: Int) {
        let error = #expect(throws: StructuredFieldError.self) { try parse(input) }
        #expect(error?.code == code, "\(input)")
        #expect(error?.offset == offset, "\(input)")
    }
}
