/// The one size grammar of Squall, used by scenario files, fault JSON, the control API, flags and benchmarks: a
/// whole number of bytes, or a whole number with a unit and nothing between them — `B`, `KiB`, `MiB`, `GiB`,
/// `TiB` (powers of 1024) or `KB`, `MB`, `GB`, `TB` (powers of 1000). `512KiB`, `8MiB`, `1GB`, `1048576`. Units
/// are case-sensitive (`8mib` is refused) and decimals are not accepted (`1.5MiB` is written `1536KiB`).
public enum ByteSize {
    /// Why a text is not a size.
    public enum Failure: Error, Equatable, Sendable {
        /// No whole number before the unit (`KiB`, `1.5MiB`, `+5`, `MiB8`, empty).
        case notAWholeNumber
        /// A unit outside the grammar (`12XB`, `8mib`, `8 MiB`).
        case unknownUnit(String)
        /// A minus sign (`-1`).
        case negative
        /// The number times its unit does not fit in 64 bits.
        case tooLarge

        /// What is wrong, for "…, not '12XB': <reason>".
        public var reason: String {
            switch self {
            case .notAWholeNumber: "a size is whole bytes or a whole number with a unit (\(ByteSize.unitList))"
            case .unknownUnit(let unit): "the unit \"\(unit)\" is not one of \(ByteSize.unitList)"
            case .negative: "a size is 0 or more"
            case .tooLarge: "it does not fit in 64 bits"
            }
        }
    }

    /// The accepted units, for messages.
    public static let unitList = "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"

    private static let units: [String: Int64] = [
        "": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
        "KB": 1000, "MB": 1_000_000, "GB": 1_000_000_000, "TB": 1_000_000_000_000,
    ]

    /// The number of bytes `text` stands for.
    public static func parse(_ text: String) throws(Failure) -> Int64 {
        let (number, unit) = NumberWithUnit.split(text)
        if number.hasPrefix("-"), number.count > 1, number.dropFirst().allSatisfy(NumberWithUnit.isDigit) {
            throw .negative
        }
        guard !number.isEmpty, number.allSatisfy(NumberWithUnit.isDigit) else { throw .notAWholeNumber }
        guard let factor = units[unit] else { throw .unknownUnit(unit) }
        guard let value = Int64(number) else { throw .tooLarge }
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .tooLarge }
        return product
    }

    /// `"64KiB"`, `"8MiB"` when a binary unit divides `bytes` exactly, else nil (write whole bytes).
    public static func binaryText(_ bytes: Int64) -> String? {
        let largestFirst: [(suffix: String, factor: Int64)] = [
            ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
        ]
        guard bytes > 0, let unit = largestFirst.first(where: { bytes % $0.factor == 0 }) else { return nil }
        return "\(bytes / unit.factor)\(unit.suffix)"
    }

    /// A size in messages, exact and readable: `"2147483648 bytes (2GiB)"`, `"80079441920 bytes (about 74.6GiB)"`
    /// (the largest binary unit not above it, one decimal), `"1000 bytes"` under 1 KiB.
    public static func description(_ bytes: Int64) -> String {
        let units: [(suffix: String, factor: Int64)] = [
            ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
        ]
        guard let unit = units.first(where: { bytes >= $0.factor }) else { return "\(bytes) bytes" }
        if bytes % unit.factor == 0 { return "\(bytes) bytes (\(bytes / unit.factor)\(unit.suffix))" }
        let tenths = (bytes / (unit.factor / 1024) * 10 + 512) / 1024
        return "\(bytes) bytes (about \(tenths / 10).\(tenths % 10)\(unit.suffix))"
    }

    /// A size for people at a glance: `"512 B"`, `"64.0 KiB"`, `"2.5 MiB"`: the largest binary unit not above it,
    /// one decimal (rounded down) from KiB up. The reports and the progress line use it.
    public static func short(_ bytes: Int64) -> String {
        let units: [(suffix: String, factor: Int64)] = [
            ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
        ]
        guard let unit = units.first(where: { bytes >= $0.factor }) else { return "\(bytes) B" }
        // ⌊bytes × 10 / factor⌋ without the product's overflow.
        let tenths = bytes / unit.factor * 10 + bytes % unit.factor * 10 / unit.factor
        return "\(tenths / 10).\(tenths % 10) \(unit.suffix)"
    }
}
