/// Parses sizes as Squall writes them everywhere: bytes, or a number with a unit — `512KiB`, `8MiB`, `1GiB`
/// (powers of 1024) or `500KB`, `8MB`, `1GB` (powers of 1000).
enum ByteSizeOption {
    private static let units: [(suffix: String, factor: Int)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("B", 1),
    ]

    static func parse(_ text: String, option: String, command: [String]) throws(UsageError) -> Int {
        let unit = units.first { text.hasSuffix($0.suffix) }
        let number = unit.map { String(text.dropLast($0.suffix.count)) } ?? text
        guard let value = Int(number), value >= 0 else {
            throw UsageError(
                "\(option) must be a size such as 1048576, 512KiB, 8MiB or 1GB, not '\(text)'", command: command)
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: unit?.factor ?? 1)
        guard !overflow else { throw UsageError("\(option) '\(text)' is too large", command: command) }
        return product
    }
}
