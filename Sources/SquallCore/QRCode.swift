/// Why a text has no QR code: it is longer than the largest symbol (version 40) holds at the chosen level.
public struct QRCodeError: Error, Sendable, Hashable {
    /// What is wrong, for a message: "the text is 2400 bytes; a QR code at level M holds at most 2331 (version 40)".
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }
}

/// A QR code (ISO/IEC 18004, Model 2) of a byte string, so that a phone's camera can read what a terminal shows,
/// such as the URL of a profile to install. The bytes are encoded in byte mode (UTF-8 for text, which scanners
/// read as such), in the smallest version from 1 to 40 that holds them at the chosen error correction level, with
/// the mask of the eight whose penalty (the standard's four rules) is lowest. Pure: the same text always gives the
/// same symbol.
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol may be damaged or hidden and still read, at the cost of room for data: about 7 % of
    /// the codewords (`low`, L), 15 % (`medium`, M), 25 % (`quartile`, Q) or 30 % (`high`, H).
    public enum ErrorCorrection: Sendable, Hashable, CaseIterable {
        case low
        case medium
        case quartile
        case high

        /// The level's letter, for messages: L, M, Q or H.
        public var letter: String {
            switch self {
            case .low: "L"
            case .medium: "M"
            case .quartile: "Q"
            case .high: "H"
            }
        }

        /// The row of the level in the error correction tables (L, M, Q, H).
        var tableRow: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .quartile: 2
            case .high: 3
            }
        }

        /// The two bits that stand for the level in the format information (L 01, M 00, Q 11, H 10).
        var formatBits: Int {
            switch self {
            case .low: 0b01
            case .medium: 0b00
            case .quartile: 0b11
            case .high: 0b10
            }
        }
    }

    /// The symbol's version, 1 to 40: its size is 17 + 4 × version modules.
    public let version: Int
    /// The number of modules on a side, without the quiet zone.
    public let size: Int
    /// The error correction level it was encoded at.
    public let correction: ErrorCorrection
    /// The data mask applied (0 to 7), the one with the lowest penalty.
    public let mask: Int
    /// Row after row, true for a dark module.
    private let modules: [Bool]

    /// The QR code of `text`'s UTF-8 bytes.
    public init(_ text: String, correction: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), correction: correction)
    }

    /// The QR code of `bytes`, in the smallest version that holds them at `correction`.
    public init(bytes: [UInt8], correction: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: bytes, correction: correction, forcedMask: nil)
    }

    /// As the public initializer, with `forcedMask` (0 to 7) instead of the best mask when it is given, so that
    /// tests can read a symbol under every mask.
    init(bytes: [UInt8], correction: ErrorCorrection, forcedMask: Int?) throws(QRCodeError) {
        guard let version = Self.smallestVersion(holding: bytes.count, correction: correction) else {
            let most = Self.byteCapacity(version: Self.maximumVersion, correction: correction)
            throw QRCodeError(
                reason: "the text is \(bytes.count) bytes; a QR code at level \(correction.letter) holds at most "
                    + "\(most) (version \(Self.maximumVersion))")
        }
        let data = Self.dataCodewords(bytes, version: version, correction: correction)
        var grid = Grid(version: version)
        grid.place(Self.interleaved(data, version: version, correction: correction))
        let masks = forcedMask.map { [$0] } ?? Array(0..<8)
        let candidates = masks.map { mask in
            let masked = grid.masked(mask, correction: correction)
            return (mask: mask, grid: masked, penalty: masked.penalty())
        }
        // The first of the lowest, so that ties go to the lower mask.
        let best = candidates.min { $0.penalty < $1.penalty } ?? candidates[0]
        self.version = version
        self.size = grid.size
        self.correction = correction
        self.mask = best.mask
        self.modules = best.grid.dark
    }

    /// Whether the module in column `x` and row `y` (0-based from the top left) is dark; modules outside the
    /// symbol are light, as its quiet zone is.
    public func isDark(_ x: Int, _ y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// The symbol for a terminal with a dark background, two module rows per line with the half blocks ▀ ▄ █ and
    /// space, surrounded by `quietZone` light modules (the standard asks for 4; 2 is enough for phone cameras and
    /// keeps it small). Inverted on purpose: a light module is drawn in the terminal's (light) foreground colour and
    /// a dark module is left as the (dark) background, so the code reads the right way round on a dark terminal.
    /// On a light-background terminal it shows as a negative, which only some scanners read. When the rows are
    /// odd in number, the last line's lower half is left as background.
    public func terminalLines(quietZone: Int = 2) -> [String] {
        let margin = max(0, quietZone)
        let end = size + margin
        return stride(from: -margin, to: end, by: 2).map { top in
            var line = ""
            for x in -margin..<end {
                let upperLight = !isDark(x, top)
                let lowerLight = top + 1 < end && !isDark(x, top + 1)
                line.append(Self.halfBlock(upper: upperLight, lower: lowerLight))
            }
            return line
        }
    }

    /// The symbol as a plain PBM image ("P1", 1 = dark), with a quiet zone of 4 modules and each module 4 × 4
    /// pixels, for tests and debugging (a decoder such as zbarimg reads it).
    public func pbm() -> String {
        let scale = 4
        let margin = 4
        let width = (size + 2 * margin) * scale
        var text = "P1\n\(width) \(width)\n"
        for row in 0..<width {
            // Plain PBM lines should not be longer than 70 characters.
            for start in stride(from: 0, to: width, by: 70) {
                for column in start..<min(width, start + 70) {
                    text.append(isDark(column / scale - margin, row / scale - margin) ? "1" : "0")
                }
                text.append("\n")
            }
        }
        return text
    }

    /// The character that shows a light (foreground) upper and lower half as asked.
    private static func halfBlock(upper: Bool, lower: Bool) -> Character {
        switch (upper, lower) {
        case (true, true): "█"
        case (true, false): "▀"
        case (false, true): "▄"
        case (false, false): " "
        }
    }
}

// MARK: - Versions and capacity

extension QRCode {
    /// The largest version supported: all of them.
    static let maximumVersion = 40

    /// The smallest version whose data codewords hold `count` bytes in byte mode at `correction`, nil when none does.
    static func smallestVersion(holding count: Int, correction: ErrorCorrection) -> Int? {
        (1...maximumVersion).first { byteCapacity(version: $0, correction: correction) >= count }
    }

    /// The most bytes byte mode holds in `version` at `correction`: the data bits less the mode indicator (4 bits)
    /// and the character count (8 bits up to version 9, 16 after), and no more than the count can say.
    static func byteCapacity(version: Int, correction: ErrorCorrection) -> Int {
        let bits = dataCodewordCount(version: version, correction: correction) * 8 - 4 - countBits(version: version)
        return min(bits / 8, (1 << countBits(version: version)) - 1)
    }

    /// The width of byte mode's character count indicator.
    static func countBits(version: Int) -> Int {
        version <= 9 ? 8 : 16
    }

    /// The modules of `version` left for codewords once every function pattern, the format and version
    /// information and the dark module are in place; a few may be left over after the last whole codeword.
    static func dataModuleCount(version: Int) -> Int {
        let side = 17 + 4 * version
        var count = side * side - 3 * 64 - 2 * (side - 16) - 31  // finders with separators, timing, format + dark
        if version >= 2 {
            let centres = alignmentCentres(version: version).count
            // Every pair of centres has a pattern but the three over the finders; those on the timing lines
            // (2 × (centres − 2)) already counted 5 of their 25 modules there.
            count -= 25 * (centres * centres - 3) - 5 * 2 * (centres - 2)
        }
        if version >= 7 {
            count -= 2 * 18
        }
        return count
    }

    /// All the codewords of `version`, data and error correction.
    static func totalCodewordCount(version: Int) -> Int {
        dataModuleCount(version: version) / 8
    }

    /// The data codewords of `version` at `correction`: the whole less the error correction codewords.
    static func dataCodewordCount(version: Int, correction: ErrorCorrection) -> Int {
        let row = correction.tableRow
        return totalCodewordCount(version: version)
            - blockCounts[row][version - 1] * eccCodewordsPerBlock[row][version - 1]
    }

    /// The centres of the alignment patterns along each axis (every pair of them has one, except the three that
    /// would cover a finder): the standard's table of positions, empty for version 1.
    static func alignmentCentres(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = 10 + 4 * version
        let step = alignmentSteps[version - 2]
        return [6] + (0..<(count - 1)).reversed().map { last - $0 * step }
    }

    /// The distance between alignment centres after the first gap, versions 2 to 40 (the standard's table of
    /// positions, whose centres run from 6 to the side less 7 in equal steps but the first).
    static let alignmentSteps: [Int] = [
        12, 16, 20, 24, 28, 16, 18, 20, 22, 24, 26, 28, 20, 22, 24, 24, 26, 28, 28, 22, 24, 24, 26, 26, 28, 28, 24,
        24, 26, 26, 26, 28, 28, 24, 26, 26, 26, 28, 28,
    ]

    /// Error correction codewords in each block, by level (L, M, Q, H) and version 1 to 40.
    static let eccCodewordsPerBlock: [[Int]] = [
        [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28,
            28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Error correction blocks, by level (L, M, Q, H) and version 1 to 40.
    static let blockCounts: [[Int]] = [
        [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18,
            19, 19, 20, 21, 22, 24, 25,
        ],
        [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
            31,
            33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40,
            43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45,
            48,
            51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]
}

// MARK: - Codewords

extension QRCode {
    /// The data codewords: mode indicator 0100 (byte), the count, the bytes, a terminator of up to four 0 bits,
    /// 0 bits to the byte boundary, then the pad codewords 0xEC and 0x11 in turn until the data codewords are full.
    static func dataCodewords(_ bytes: [UInt8], version: Int, correction: ErrorCorrection) -> [UInt8] {
        let capacity = dataCodewordCount(version: version, correction: correction)
        var bits = BitWriter()
        bits.append(0b0100, width: 4)
        bits.append(bytes.count, width: countBits(version: version))
        for byte in bytes {
            bits.append(Int(byte), width: 8)
        }
        bits.append(0, width: min(4, capacity * 8 - bits.count))
        bits.append(0, width: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        for index in 0..<max(0, capacity - codewords.count) {
            codewords.append(index.isMultiple(of: 2) ? 0xEC : 0x11)
        }
        return codewords
    }

    /// The final sequence of codewords: the data split into blocks (the shorter ones first, the longer ones one
    /// codeword longer), each given its Reed–Solomon codewords, then the data codewords taken a column at a time
    /// across the blocks, then the error correction codewords likewise.
    static func interleaved(_ data: [UInt8], version: Int, correction: ErrorCorrection) -> [UInt8] {
        let blockCount = blockCounts[correction.tableRow][version - 1]
        let eccLength = eccCodewordsPerBlock[correction.tableRow][version - 1]
        let total = totalCodewordCount(version: version)
        let shortBlocks = blockCount - total % blockCount
        let shortDataLength = total / blockCount - eccLength
        var blocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortDataLength + (index < shortBlocks ? 0 : 1)
            blocks.append(Array(data[start..<(start + length)]))
            start += length
        }
        let generator = ReedSolomon.generator(degree: eccLength)
        let eccBlocks = blocks.map { ReedSolomon.remainder($0, generator: generator) }
        return columns(of: blocks, length: shortDataLength + 1) + columns(of: eccBlocks, length: eccLength)
    }

    /// The i-th element of every block that has one, for i from 0 to `length` − 1.
    private static func columns(of blocks: [[UInt8]], length: Int) -> [UInt8] {
        (0..<length).flatMap { index in blocks.compactMap { index < $0.count ? $0[index] : nil } }
    }

    /// Bits appended most significant first, read back as bytes.
    private struct BitWriter {
        private(set) var bytes: [UInt8] = []
        private(set) var count = 0

        mutating func append(_ value: Int, width: Int) {
            for shift in stride(from: width - 1, through: 0, by: -1) {
                if count % 8 == 0 {
                    bytes.append(0)
                }
                if (value >> shift) & 1 == 1 {
                    bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8)
                }
                count += 1
            }
        }
    }
}

// MARK: - Reed–Solomon

extension QRCode {
    /// Arithmetic in GF(256) built on the QR code's field polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), and the
    /// Reed–Solomon error correction codewords computed in it.
    enum ReedSolomon {
        /// The product of two field elements: carry-less multiplication reduced by the field polynomial.
        static func multiply(_ left: UInt8, _ right: UInt8) -> UInt8 {
            var product = 0
            var shifted = Int(left)
            var remaining = Int(right)
            while remaining > 0 {
                if remaining & 1 == 1 {
                    product ^= shifted
                }
                shifted <<= 1
                if shifted & 0x100 != 0 {
                    shifted ^= 0x11D
                }
                remaining >>= 1
            }
            return UInt8(product)
        }

        /// α to the power `exponent`, where α = 2 generates the field.
        static func power(_ exponent: Int) -> UInt8 {
            (0..<exponent).reduce(1) { value, _ in multiply(value, 2) }
        }

        /// The coefficients of the generator polynomial (x − α⁰)(x − α¹)…(x − αⁿ⁻¹) of degree n, highest power
        /// first, without the leading 1.
        static func generator(degree: Int) -> [UInt8] {
            var coefficients: [UInt8] = [1]
            for index in 0..<degree {
                let root = power(index)
                // (c₀xᵏ + … + cₖ)(x + r): each coefficient plus r times the one before it (− is + in GF(2⁸)).
                coefficients = (0...coefficients.count).map { position in
                    let own = position < coefficients.count ? coefficients[position] : 0
                    let carried = position > 0 ? multiply(coefficients[position - 1], root) : 0
                    return own ^ carried
                }
            }
            return Array(coefficients.dropFirst())
        }

        /// The `degree` error correction codewords of `data`: the remainder of data(x) · xⁿ divided by the
        /// generator polynomial of degree n, highest power first.
        static func remainder(_ data: [UInt8], degree: Int) -> [UInt8] {
            remainder(data, generator: generator(degree: degree))
        }

        /// The remainder of data(x) · xⁿ divided by `generator` (as `generator(degree:)` gives it), highest power
        /// first: the error correction codewords of each block, with the generator computed once for them all.
        static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
            var remainder = [UInt8](repeating: 0, count: generator.count)
            for byte in data {
                let factor = byte ^ remainder[0]
                remainder.removeFirst()
                remainder.append(0)
                for index in generator.indices {
                    remainder[index] ^= multiply(generator[index], factor)
                }
            }
            return remainder
        }
    }
}

// MARK: - Format and version information

extension QRCode {
    /// The 15 format information bits for `correction` and `mask`: the level's 2 bits and the mask's 3, their
    /// BCH(15,5) check bits (generator x¹⁰ + x⁸ + x⁵ + x⁴ + x² + x + 1, 0x537), the whole XORed with 0x5412 so that
    /// it is never all light.
    static func formatBits(_ correction: ErrorCorrection, mask: Int) -> Int {
        let data = correction.formatBits << 3 | mask
        return bchCode(data, dataWidth: 5, generator: 0x537, degree: 10) ^ 0x5412
    }

    /// The 18 version information bits of `version` (7 and later): its 6 bits and their BCH(18,6) check bits
    /// (generator x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1, 0x1F25).
    static func versionBits(_ version: Int) -> Int {
        bchCode(version, dataWidth: 6, generator: 0x1F25, degree: 12)
    }

    /// `data` followed by the remainder of data(x) · x^degree divided by `generator`.
    private static func bchCode(_ data: Int, dataWidth: Int, generator: Int, degree: Int) -> Int {
        var remainder = data << degree
        for bit in stride(from: dataWidth + degree - 1, through: degree, by: -1) where (remainder >> bit) & 1 == 1 {
            remainder ^= generator << (bit - degree)
        }
        return data << degree | remainder
    }

    /// Whether mask `mask` inverts the module in column `x` and row `y`.
    static func maskInverts(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (y + x) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (y + x) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (y * x) % 2 + (y * x) % 3 == 0
        case 6: ((y * x) % 2 + (y * x) % 3) % 2 == 0
        default: ((y + x) % 2 + (y * x) % 3) % 2 == 0
        }
    }
}

// MARK: - The module grid

extension QRCode {
    /// The modules of a symbol being built, and which of them belong to function patterns or the format and
    /// version information (never data, never masked).
    struct Grid {
        let size: Int
        private(set) var dark: [Bool]
        private(set) var reserved: [Bool]

        /// The function patterns of `version`: finders with their separators, timing patterns, alignment
        /// patterns, version information, the dark module, and the format information's place (light for now).
        init(version: Int) {
            size = 17 + 4 * version
            dark = Array(repeating: false, count: size * size)
            reserved = dark
            drawTimingPatterns()
            for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                drawSquares(centreX: x, centreY: y, radius: 4) { $0 != 2 && $0 != 4 }
            }
            drawAlignmentPatterns(version: version)
            drawFormat(0)
            if version >= 7 {
                drawVersion(QRCode.versionBits(version))
            }
            setFunction(8, size - 8, dark: true)
        }

        subscript(x: Int, y: Int) -> Bool {
            dark[y * size + x]
        }

        /// Lays out `codewords` most significant bit first in the data modules: up and down two-module columns
        /// from the right, skipping the vertical timing pattern; modules left over stay light.
        mutating func place(_ codewords: [UInt8]) {
            var bit = 0
            for right in stride(from: size - 1, through: 1, by: -2).map({ $0 <= 6 ? $0 - 1 : $0 }) {
                let upward = (right + 1) & 2 == 0
                for step in 0..<size {
                    let y = upward ? size - 1 - step : step
                    for x in [right, right - 1] where !reserved[y * size + x] && bit < codewords.count * 8 {
                        dark[y * size + x] = (codewords[bit / 8] >> UInt8(7 - bit % 8)) & 1 == 1
                        bit += 1
                    }
                }
            }
        }

        /// This grid with `mask` applied to the data modules and the format information written for it.
        func masked(_ mask: Int, correction: ErrorCorrection) -> Grid {
            var grid = self
            for y in 0..<size {
                for x in 0..<size where !reserved[y * size + x] && QRCode.maskInverts(mask, x: x, y: y) {
                    grid.dark[y * size + x].toggle()
                }
            }
            grid.drawFormat(QRCode.formatBits(correction, mask: mask))
            return grid
        }

        /// Alternating modules along row 6 and column 6, dark at even positions.
        private mutating func drawTimingPatterns() {
            for index in 0..<size {
                setFunction(6, index, dark: index.isMultiple(of: 2))
                setFunction(index, 6, dark: index.isMultiple(of: 2))
            }
        }

        /// Every centre pair but the three over the finders gets a 5 × 5 pattern: a dark ring, a light ring and
        /// a dark centre.
        private mutating func drawAlignmentPatterns(version: Int) {
            let centres = QRCode.alignmentCentres(version: version)
            guard let first = centres.first, let last = centres.last else { return }
            func isOverFinder(_ x: Int, _ y: Int) -> Bool {
                (x == first && y == first) || (x == first && y == last) || (x == last && y == first)
            }
            for x in centres {
                for y in centres where !isOverFinder(x, y) {
                    drawSquares(centreX: x, centreY: y, radius: 2) { $0 != 1 }
                }
            }
        }

        /// Concentric squares around a centre out to `radius`, dark where `isDarkRing` says so for the ring's
        /// distance from the centre (0 is the centre); modules outside the symbol are skipped.
        private mutating func drawSquares(centreX: Int, centreY: Int, radius: Int, isDarkRing: (Int) -> Bool) {
            for dy in -radius...radius {
                for dx in -radius...radius {
                    let x = centreX + dx
                    let y = centreY + dy
                    if (0..<size).contains(x), (0..<size).contains(y) {
                        setFunction(x, y, dark: isDarkRing(max(abs(dx), abs(dy))))
                    }
                }
            }
        }

        /// The 15 format bits twice, bit 0 first: down column 8 beside the top left finder (skipping the timing
        /// pattern) and left along row 8, and again along row 8 under the top right finder (bits 0 to 7, from the
        /// right edge) and up column 8 beside the bottom left finder (bits 8 to 14).
        private mutating func drawFormat(_ bits: Int) {
            func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
            for index in 0..<6 {
                setFunction(8, index, dark: bit(index))
            }
            setFunction(8, 7, dark: bit(6))
            setFunction(8, 8, dark: bit(7))
            setFunction(7, 8, dark: bit(8))
            for index in 9..<15 {
                setFunction(14 - index, 8, dark: bit(index))
            }
            for index in 0..<8 {
                setFunction(size - 1 - index, 8, dark: bit(index))
            }
            for index in 8..<15 {
                setFunction(8, size - 15 + index, dark: bit(index))
            }
        }

        /// The 18 version bits in the 6 × 3 block left of the top right finder, bit 0 at its top left and rows of
        /// three, and transposed in the 3 × 6 block above the bottom left finder.
        private mutating func drawVersion(_ bits: Int) {
            for index in 0..<18 {
                let isDark = (bits >> index) & 1 == 1
                let across = size - 11 + index % 3
                let down = index / 3
                setFunction(across, down, dark: isDark)
                setFunction(down, across, dark: isDark)
            }
        }

        private mutating func setFunction(_ x: Int, _ y: Int, dark isDark: Bool) {
            dark[y * size + x] = isDark
            reserved[y * size + x] = true
        }
    }
}

// MARK: - Mask penalty

extension QRCode.Grid {
    /// The standard's penalty for a masked symbol, lower is better: runs of five or more modules of one colour in
    /// a row or column (3 + the length beyond 5), 2 × 2 blocks of one colour (3 each), finder-like 1:1:3:1:1
    /// patterns with 4 light modules on either side (40 each), and 10 for each whole 5 % the share of dark
    /// modules is away from half. Computed on the symbol as it will be shown: masked, with its format and version
    /// information.
    func penalty() -> Int {
        var total = 0
        for index in 0..<size {
            let row = Array(dark[(index * size)..<((index + 1) * size)])
            let column = stride(from: index, to: dark.count, by: size).map { dark[$0] }
            total += Self.runPenalty(row) + Self.runPenalty(column)
            total += Self.finderLikePenalty(row) + Self.finderLikePenalty(column)
        }
        return total + blockPenalty() + balancePenalty()
    }

    /// Rule 1 along one line: 3 for a run of five modules of one colour, one more for each further module.
    static func runPenalty(_ line: [Bool]) -> Int {
        guard !line.isEmpty else { return 0 }
        var total = 0
        var start = 0
        for index in 1...line.count where index == line.count || line[index] != line[start] {
            let length = index - start
            if length >= 5 {
                total += length - 2
            }
            start = index
        }
        return total
    }

    /// Rule 3 along one line: 40 for each dark-light-dark-dark-dark-light-dark run with four light modules
    /// before or after it (outside the symbol counts as light: the quiet zone).
    static func finderLikePenalty(_ line: [Bool]) -> Int {
        40 * (0..<max(0, line.count - 6)).filter { isFinderLike(line, at: $0) }.count
    }

    /// Whether dark-light-dark-dark-dark-light-dark starts at `start`, with four light modules before or after it.
    private static func isFinderLike(_ line: [Bool], at start: Int) -> Bool {
        guard line[start], !line[start + 1], line[start + 2], line[start + 3], line[start + 4], !line[start + 5],
            line[start + 6]
        else { return false }
        func isLight(_ range: Range<Int>) -> Bool {
            range.allSatisfy { !line.indices.contains($0) || !line[$0] }
        }
        return isLight((start - 4)..<start) || isLight((start + 7)..<(start + 11))
    }

    /// Rule 2: 3 for every 2 × 2 block of one colour (overlapping blocks count each).
    private func blockPenalty() -> Int {
        var total = 0
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = self[x, y]
                if self[x + 1, y] == colour, self[x, y + 1] == colour, self[x + 1, y + 1] == colour {
                    total += 3
                }
            }
        }
        return total
    }

    /// Rule 4: 10 for each whole 5 % between the share of dark modules and 50 %.
    private func balancePenalty() -> Int {
        let darkCount = dark.count { $0 }
        return 10 * (abs(darkCount * 20 - dark.count * 10) / dark.count)
    }
}
