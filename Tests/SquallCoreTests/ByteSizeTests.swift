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

    @Test(arguments: ["", "KiB", "12XB", "-1", "+5", "1.5MiB", "8 MiB", "8mib", "MiB8"])
    func rejectsWhatIsNotASize(text: String) {
        #expect(throws: ByteSize.Failure.notASize) { try ByteSize.parse(text) }
    }

    @Test func rejectsSizesPast64Bits() throws {
        #expect(throws: ByteSize.Failure.tooLarge) { try ByteSize.parse("9000000TiB") }
        #expect(try ByteSize.parse("8388607TiB") == 8_388_607 << 40)
    }
}
