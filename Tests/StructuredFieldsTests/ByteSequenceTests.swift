import StructuredFields
import Testing

struct ByteSequenceTests {
    private func serialize(_ bytes: [UInt8]) throws -> String {
        try StructuredFieldSerializer.serialize(Item(.byteSequence(bytes)))
    }

    private func decode(_ text: String) throws -> [UInt8]? {
        try StructuredFieldParser.parseItem(text).byteSequence
    }

    /// The test vectors of RFC 4648 §10.
    @Test(arguments: [
        ("", "::"),
        ("f", ":Zg==:"),
        ("fo", ":Zm8=:"),
        ("foo", ":Zm9v:"),
        ("foob", ":Zm9vYg==:"),
        ("fooba", ":Zm9vYmE=:"),
        ("foobar", ":Zm9vYmFy:"),
    ])
    func rfc4648VectorsEncodeAndDecode(plain: String, encoded: String) throws {
        #expect(try serialize(Array(plain.utf8)) == encoded)
        #expect(try decode(encoded) == Array(plain.utf8))
    }

    @Test func everyByteValueRoundTripsAtEveryLength() throws {
        let all = (0...255).map { UInt8($0) }
        for length in [0, 1, 2, 3, 64, 255, 256] {
            let bytes = Array(all.prefix(length))
            #expect(try decode(try serialize(bytes)) == bytes)
        }
        #expect(try serialize([0xFB, 0xFF, 0xBF]) == ":+/+/:")
    }

    @Test func missingPaddingAndNonZeroPadBitsAreAccepted() throws {
        #expect(try decode(":aGVsbG8:") == Array("hello".utf8))
        #expect(try decode(":Zg:") == Array("f".utf8))
        #expect(try decode(":Zh==:") == Array("f".utf8))
    }

    @Test(arguments: [
        (":aGVsbG8", 0),
        (":aGV%bG8=:", 4),
        (":aGVs bG8=:", 5),
        (":aGVsbG8-:", 8),
        (":aGVsbG8_:", 8),
        (":aG=Vs:", 4),
        (":a:", 2),
        (":aGVsbG8==:", 10),
        (":Zg=:", 4),
        (":Zm9v====:", 9),
        (":=:", 2),
        (":é:", 1),
    ])
    func malformedBase64IsRejectedWhereItGoesWrong(input: String, offset: Int) {
        let error = #expect(throws: StructuredFieldError.self) { try StructuredFieldParser.parseItem(input) }
        #expect(error?.code == .invalidByteSequence, "\(input)")
        #expect(error?.offset == offset, "\(input)")
    }
}
