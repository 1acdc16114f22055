import SquallCore
import Testing

struct ByteSizeTests {
    @Test(
        arguments: [
            ("0", 0), ("1048576", 1_048_576), ("512KiB", 524_288), ("8MiB", 8_388_608), ("1GiB", 1_073_741_824),
            ("2TiB", 2_199_023_255_552), ("500KB", 500_000), ("8MB", 8_000_000), ("1GB", 1_000_000_000),
            ("3TB", 3_000_000_000_000), ("17B", 17),
        ] as [(String, Int64)])
    func parsesBytesAndUnits(text: String, bytes: Int64) throws {
        #expect(try ByteSize.parse(text) == bytes)
    }

    @Test(arguments: [
        ("", ByteSize.Failure.notAWholeNumber), ("KiB", .notAWholeNumber), ("+5", .notAWholeNumber),
        ("1.5MiB", .notAWholeNumber), ("MiB8", .notAWholeNumber), ("-1", .negative), ("-3KiB", .negative),
        ("12XB", .unknownUnit("XB")), ("8 MiB", .unknownUnit(" MiB")), ("8mib", .unknownUnit("mib")),
        ("99999999999999999999", .tooLarge),
    ])
    func rejectsWhatIsNotASizeWithItsReason(text: String, failure: ByteSize.Failure) {
        #expect(throws: failure) { try ByteSize.parse(text) }
    }

    @Test func rejectsSizesPast64Bits() throws {
        #expect(throws: ByteSize.Failure.tooLarge) { try ByteSize.parse("9000000TiB") }
        #expect(try ByteSize.parse("8388607TiB") == 8_388_607 << 40)
    }

    @Test func reasonsNameTheAcceptedUnits() {
        #expect(ByteSize.Failure.unknownUnit("XB").reason.contains("B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"))
    }

    @Test(arguments: [(Int64(65536), "64KiB"), (8 << 20, "8MiB"), (3 << 40, "3TiB")] as [(Int64, String)])
    func binaryTextUsesTheLargestExactUnit(bytes: Int64, text: String) throws {
        #expect(ByteSize.binaryText(bytes) == text)
        #expect(try ByteSize.parse(text) == bytes)
    }

    @Test func binaryTextIsNilWithoutAnExactUnit() {
        #expect(ByteSize.binaryText(1000) == nil)
        #expect(ByteSize.binaryText(0) == nil)
    }

    /// Sizes in messages: the exact bytes, and the largest binary unit not above them (rounded to a tenth when
    /// it does not divide them).
    @Test(arguments: [
        (Int64(0), "0 bytes"), (1023, "1023 bytes"), (1024, "1024 bytes (1KiB)"), (1536, "1536 bytes (about 1.5KiB)"),
        (2 << 30, "2147483648 bytes (2GiB)"), (80_079_441_920, "80079441920 bytes (about 74.6GiB)"),
        (2_097_152_000_000, "2097152000000 bytes (about 1.9TiB)"), (1_073_741_825, "1073741825 bytes (about 1.0GiB)"),
        (.max, "9223372036854775807 bytes (about 8388608.0TiB)"),
    ])
    func describesSizesExactlyAndReadably(bytes: Int64, text: String) {
        #expect(ByteSize.description(bytes) == text)
    }

    /// Sizes at a glance (reports, the progress line): one decimal, rounded down, from KiB up.
    @Test(arguments: [
        (Int64(0), "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1535, "1.4 KiB"), (65_536, "64.0 KiB"),
        (2_621_440, "2.5 MiB"), (1_153_433, "1.0 MiB"), (1_153_434, "1.1 MiB"), (3 << 30, "3.0 GiB"),
        (1 << 40, "1.0 TiB"), (.max, "8388607.9 TiB"),
    ])
    func shortSizesHaveOneDecimal(bytes: Int64, text: String) {
        #expect(ByteSize.short(bytes) == text)
    }
}
