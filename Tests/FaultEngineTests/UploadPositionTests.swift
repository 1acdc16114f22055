import FaultEngine
import Testing

struct UploadPositionTests {
    @Test func fortyPercentOfEightMiBRoundsDown() throws {
        let position = try UploadPosition.parse("40%")
        #expect(position == .fraction(numerator: 40, denominator: 100))
        #expect(position.offset(uploadLength: 8 << 20) == 3_355_443)
        #expect(position.offset(uploadLength: nil) == nil)
        #expect(position.needsLength)
    }

    @Test(arguments: [
        ("0%", Int64(1000), Int64(0)), ("100%", 1000, 1000), ("12.5%", 1000, 125), ("33.333333%", 3, 0),
        ("50%", 1, 0), ("50%", Int64.max, Int64.max / 2), ("99.9%", 1001, 999),
    ])
    func percentagesResolveExactly(_ text: String, _ length: Int64, _ expected: Int64) throws {
        #expect(try UploadPosition.parse(text).offset(uploadLength: length) == expected)
    }

    @Test func sizesAreAbsoluteOffsets() throws {
        #expect(try UploadPosition.parse("3MiB") == .bytes(3 << 20))
        #expect(try UploadPosition.parse("1500") == .bytes(1500))
        #expect(try UploadPosition.parse("1KB").offset(uploadLength: nil) == 1000)
        #expect(try !UploadPosition.parse("1KB").needsLength)
    }

    @Test(arguments: [
        ("101%", FaultError.Code.invalidValue), ("%", .invalidValue), ("-5%", .invalidValue), ("1.%", .invalidValue),
        (".5%", .invalidValue), ("1.1234567%", .invalidValue), ("4O%", .invalidValue), ("-3", .invalidSize),
        ("3 MiB", .invalidSize), ("forty", .invalidSize),
    ])
    func rejectsBadPositions(_ text: String, _ code: FaultError.Code) {
        #expect {
            try UploadPosition.parse(text, path: "trigger.at-offset")
        } throws: { error in
            (error as? FaultError)?.code == code && (error as? FaultError)?.path == "trigger.at-offset"
        }
    }

    @Test func aBadSizeSaysWhichUnitsAreAccepted() {
        #expect {
            try UploadPosition.parse("3XB", path: "trigger.at-offset")
        } throws: { error in
            (error as? FaultError)?.detail.hasSuffix(
                #"the unit "XB" is not one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"#)
                == true
        }
    }
}
