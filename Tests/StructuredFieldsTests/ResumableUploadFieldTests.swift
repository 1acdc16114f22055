import StructuredFields
import Testing

/// The fields of draft-ietf-httpbis-resumable-upload, read through the typed accessors.
struct ResumableUploadFieldTests {
    @Test func uploadLimitGivesIntegers() throws {
        let field = "max-size=1073741824, min-size=0, max-append-size=8388608, max-age=3600"
        let limit = try StructuredFieldParser.parseDictionary(field)
        #expect(try limit.integer("max-size") == 1_073_741_824)
        #expect(try limit.integer("min-size") == 0)
        #expect(try limit.integer("max-append-size") == 8_388_608)
        #expect(try limit.integer("max-age") == 3600)
        #expect(try limit.integer("min-append-size") == nil)
        #expect(try limit.integer("expires") == nil)
        #expect(try StructuredFieldSerializer.serialize(limit) == field)
    }

    @Test func uploadLimitWithAMistypedKnownKeyNamesTheKey() throws {
        let limit = try StructuredFieldParser.parseDictionary("max-size=1000, min-size=?1, x-unknown=\"kept\"")
        let error = #expect(throws: StructuredFieldError.self) { try limit.integer("min-size") }
        #expect(error?.code == .wrongType)
        #expect(error?.key == "min-size")
        #expect(error?.actual == .boolean)
        #expect(try limit.string("x-unknown") == "kept")
    }

    @Test func uploadCompleteIsABoolean() throws {
        #expect(try StructuredFieldParser.parseItem("?1").asBoolean() == true)
        #expect(try StructuredFieldParser.parseItem("?0").asBoolean() == false)
        let error = #expect(throws: StructuredFieldError.self) { try StructuredFieldParser.parseItem("1").asBoolean() }
        #expect(error?.actual == .integer)
    }

    @Test func uploadOffsetLengthAndInteropVersionAreIntegers() throws {
        #expect(try StructuredFieldParser.parseItem("123").asInteger() == 123)
        #expect(try StructuredFieldParser.parseItem("6").asInteger() == 6)
        #expect(try StructuredFieldParser.parseItem(" 5368709120 ").asInteger() == 5_368_709_120)
        let quoted = #expect(throws: StructuredFieldError.self) {
            try StructuredFieldParser.parseItem(#""12""#).asInteger()
        }
        #expect(quoted?.code == .wrongType)
        #expect(quoted?.expected == .integer)
        #expect(quoted?.actual == .string)
        let negative = try StructuredFieldParser.parseItem("-1").asInteger()
        #expect(negative == -1)
    }

    @Test func responseFieldsSerialize() throws {
        #expect(try StructuredFieldSerializer.serialize(Item(.boolean(true))) == "?1")
        #expect(try StructuredFieldSerializer.serialize(Item(.integer(8_388_608))) == "8388608")
        let limit: FieldDictionary = ["max-size": .item(Item(.integer(1000))), "min-size": .item(Item(.integer(0)))]
        #expect(limit.description == "max-size=1000, min-size=0")
    }

    @Test func problemTypeTokensAndRetryAfterStyleValues() throws {
        #expect(
            try StructuredFieldParser.parseItem("mismatching-upload-offset").asToken() == "mismatching-upload-offset")
        #expect(try StructuredFieldParser.parseItem("120").asInteger() == 120)
    }
}
