/// Sizes as Squall writes them everywhere (flags, benchmarks, later scenario files): a number of bytes, or a
/// number with a unit — `512KiB`, `8MiB`, `1GiB`, `1TiB` (powers of 1024) or `500KB`, `8MB`, `1GB`, `1TB`
/// (powers of 1000) or `B`.
public enum ByteSize {
    /// Why a size did not parse.
    public enum Failure: Error, Equatable, Sendable {
        /// Not a non-negative whole number with an optional unit.
        case notASize
        /// The number times its unit does not fit in 64 bits.
        case tooLarge
    }

    private static let units: [(suffix: String, factor: Int64)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("B", 1),
    ]

    /// The number of bytes `text` stands for.
    public static func parse(_ text: String) throws(Failure) -> Int64 {
        let unit = units.first { text.hasSuffix($0.suffix) }
        let number = unit.map { String(text.dropLast($0.suffix.count)) } ?? text
        guard let value = Int64(number), value >= 0, number.first != "+" else { throw .notASize }
        let (product, overflow) = value.multipliedReportingOverflow(by: unit?.factor ?? 1)
        guard !overflow else { throw .tooLarge }
        return product
    }
}
