import SquallCore
import Testing

struct UTCTimestampTests {
    static let cases: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00.000Z"),
        (1_796_608_800_123_456, "2026-12-07T02:00:00.123Z"),
        (951_782_400_000_000, "2000-02-29T00:00:00.000Z"),
        (951_868_799_999_999, "2000-02-29T23:59:59.999Z"),
        (1_709_251_199_000_000, "2024-02-29T23:59:59.000Z"),
        (4_107_542_400_000_000, "2100-03-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-86_400_000_000 * 365, "1969-01-01T00:00:00.000Z"),
    ]

    @Test(arguments: cases)
    func dates(_ microseconds: Int64, _ text: String) {
        #expect(UTCTimestamp.text(unixMicroseconds: microseconds) == text)
    }
}
