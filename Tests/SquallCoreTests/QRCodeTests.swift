import Foundation
import Testing

@testable import SquallCore

/// Known answers from ISO/IEC 18004 (the Reed–Solomon example of its annex, the generator polynomials, the format
/// and version information tables, the capacities), the structure of a symbol read back module by module, and
/// symbols read back by a real decoder (zbarimg, from zbar-tools, which Tools/setup.sh installs).
struct QRCodeTests {
    // MARK: Reed–Solomon

    /// The standard's worked example (1-M, "01234567"): its 16 data codewords give these 10 error correction
    /// codewords. The mode does not matter to Reed–Solomon: the codewords are bytes like any others.
    @Test func reedSolomonGivesTheStandardsExampleCodewords() {
        let data: [UInt8] = [16, 32, 12, 86, 97, 128, 236, 17, 236, 17, 236, 17, 236, 17, 236, 17]
        #expect(QRCode.ReedSolomon.remainder(data, degree: 10) == [165, 36, 212, 193, 237, 54, 199, 135, 44, 85])
    }

    /// The field: α⁸ = α⁴ + α³ + α² + 1 (0x1D) under the polynomial 0x11D, α has order 255, and a few products.
    @Test func fieldArithmeticFollowsThePolynomial0x11D() {
        #expect(QRCode.ReedSolomon.power(8) == 0x1D)
        #expect(QRCode.ReedSolomon.power(255) == 1)
        #expect(Set((0..<255).map { QRCode.ReedSolomon.power($0) }).count == 255)
        #expect(QRCode.ReedSolomon.multiply(0x80, 2) == 0x1D)
        #expect(QRCode.ReedSolomon.multiply(0x53, 0) == 0)
        #expect(QRCode.ReedSolomon.multiply(1, 0xCA) == 0xCA)
    }

    /// The generator polynomials of 7 and 10 codewords as the standard's annex lists them, in exponents of α
    /// (highest power first, the leading 1 left out).
    @Test(arguments: [
        (7, [87, 229, 146, 149, 238, 102, 21]),
        (10, [251, 67, 46, 61, 118, 70, 64, 94, 32, 45]),
    ])
    func generatorPolynomialsMatchTheStandardsAnnex(degree: Int, exponents: [Int]) {
        #expect(QRCode.ReedSolomon.generator(degree: degree) == exponents.map { QRCode.ReedSolomon.power($0) })
    }

    /// Whatever the data, data followed by its error correction codewords is a multiple of the generator: the
    /// polynomial is zero at α⁰ … αⁿ⁻¹.
    @Test(
        arguments: [(Array("squall".utf8), 7), (Array(0...40), 18), (Array(repeating: 0xFF, count: 100), 30)]
            as [([UInt8], Int)])
    func codewordsVanishAtTheGeneratorsRoots(data: [UInt8], degree: Int) {
        let codeword = data + QRCode.ReedSolomon.remainder(data, degree: degree)
        for exponent in 0..<degree {
            let root = QRCode.ReedSolomon.power(exponent)
            let value = codeword.reduce(UInt8(0)) { QRCode.ReedSolomon.multiply($0, root) ^ $1 }
            #expect(value == 0, "at α^\(exponent)")
        }
    }

    // MARK: Format and version information

    /// The standard's table of format information, level M, masks 0 to 7, and mask 0 of the other levels.
    @Test func formatInformationMatchesTheStandardsTable() {
        let levelM = [
            0b101_0100_0001_0010, 0b101_0001_0010_0101, 0b101_1110_0111_1100, 0b101_1011_0100_1011,
            0b100_0101_1111_1001, 0b100_0000_1100_1110, 0b100_1111_1001_0111, 0b100_1010_1010_0000,
        ]
        #expect((0..<8).map { QRCode.formatBits(.medium, mask: $0) } == levelM)
        #expect(QRCode.formatBits(.low, mask: 0) == 0x77C4)
        #expect(QRCode.formatBits(.quartile, mask: 0) == 0x355F)
        #expect(QRCode.formatBits(.high, mask: 0) == 0x1689)
    }

    @Test func versionInformationMatchesTheStandardsTable() {
        #expect(QRCode.versionBits(7) == 0x07C94)
        #expect(QRCode.versionBits(8) == 0x085BC)
        #expect(QRCode.versionBits(10) == 0x0A4D3)
        #expect(QRCode.versionBits(40) == 0x28C69)
    }

    // MARK: Capacity and versions

    /// Byte-mode capacities at the edges of versions: the largest text of a version and one byte more.
    @Test(
        arguments: [
            (14, QRCode.ErrorCorrection.medium, 1), (15, .medium, 2), (26, .medium, 2), (27, .medium, 3),
            (42, .medium, 3), (43, .medium, 4), (213, .medium, 10), (214, .medium, 11), (17, .low, 1), (18, .low, 2),
            (11, .quartile, 1), (12, .quartile, 2), (7, .high, 1), (8, .high, 2), (1, .medium, 1), (0, .medium, 1),
        ] as [(Int, QRCode.ErrorCorrection, Int)])
    func theSmallestVersionThatHoldsTheTextIsChosen(length: Int, correction: QRCode.ErrorCorrection, version: Int)
        throws
    {
        let code = try QRCode(String(repeating: "a", count: length), correction: correction)
        #expect(code.version == version)
        #expect(code.size == 17 + 4 * version)
        #expect(code.correction == correction)
    }

    /// Version 40 holds 2953, 2331, 1663 and 1273 bytes at L, M, Q and H; one more is refused with its reason.
    @Test(
        arguments: [
            (QRCode.ErrorCorrection.low, 2953), (.medium, 2331), (.quartile, 1663), (.high, 1273),
        ] as [(QRCode.ErrorCorrection, Int)])
    func theLargestTextsFillVersion40AndLongerOnesAreRefused(correction: QRCode.ErrorCorrection, most: Int) throws {
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: most), correction: correction).version == 40)
        #expect(throws: QRCodeError.self) {
            try QRCode(bytes: Array(repeating: 0x41, count: most + 1), correction: correction)
        }
    }

    @Test func theRefusalNamesTheLengthTheLevelAndTheLimit() {
        do {
            _ = try QRCode(String(repeating: "x", count: 2332))
            Issue.record("a text of 2332 bytes was accepted at level M")
        } catch {
            #expect(error.reason == "the text is 2332 bytes; a QR code at level M holds at most 2331 (version 40)")
        }
    }

    /// The number of data codewords of a few versions and levels, as the standard's table gives them.
    @Test func dataCodewordCountsMatchTheStandardsTable() {
        #expect(
            [1, 2, 5, 10, 40].map { QRCode.dataCodewordCount(version: $0, correction: .medium) }
                == [16, 28, 86, 216, 2334])
        #expect(QRCode.dataCodewordCount(version: 1, correction: .low) == 19)
        #expect(QRCode.dataCodewordCount(version: 7, correction: .quartile) == 88)
        #expect(QRCode.dataCodewordCount(version: 40, correction: .high) == 1276)
        #expect((1...7).map { QRCode.totalCodewordCount(version: $0) } == [26, 44, 70, 100, 134, 172, 196])
    }

    /// The count of data modules agrees with the grid: every module that no function pattern or information
    /// area took, for every version.
    @Test func dataModulesAreWhatTheFunctionPatternsLeave() {
        for version in 1...40 {
            let free = QRCode.Grid(version: version).reserved.count { !$0 }
            #expect(free == QRCode.dataModuleCount(version: version), "version \(version)")
        }
    }

    @Test func alignmentCentresMatchTheStandardsTable() {
        #expect(QRCode.alignmentCentres(version: 1) == [])
        #expect(QRCode.alignmentCentres(version: 2) == [6, 18])
        #expect(QRCode.alignmentCentres(version: 7) == [6, 22, 38])
        #expect(QRCode.alignmentCentres(version: 22) == [6, 26, 50, 74, 98])
        #expect(QRCode.alignmentCentres(version: 32) == [6, 34, 60, 86, 112, 138])
        #expect(QRCode.alignmentCentres(version: 36) == [6, 24, 50, 76, 102, 128, 154])
        #expect(QRCode.alignmentCentres(version: 40) == [6, 30, 58, 86, 114, 142, 170])
    }

    // MARK: Data codewords

    /// "s" at 1-M: mode 0100, count 00000001, 01110011, terminator 0000, then the pad codewords in turn.
    @Test func theBitStreamIsModeCountDataTerminatorAndPadding() {
        let padded: [UInt8] = [
            0x40, 0x17, 0x30, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC,
        ]
        #expect(QRCode.dataCodewords(Array("s".utf8), version: 1, correction: .medium) == padded)
        // From version 10 the count takes 16 bits: 200 is 0000 0000 1100 1000.
        let long = QRCode.dataCodewords(Array(repeating: 0x61, count: 200), version: 10, correction: .medium)
        #expect(Array(long.prefix(4)) == [0x40, 0x0C, 0x86, 0x16])
        #expect(long.count == 216)
    }

    /// Interleaving at 5-Q (two blocks of 15 data codewords and two of 16): the first data codeword of each
    /// block, then the second, …, the longer blocks' last ones alone, then the error correction codewords.
    @Test func blocksAreInterleavedShortOnesFirst() {
        let data = (0..<62).map { UInt8($0) }
        let sequence = QRCode.interleaved(data, version: 5, correction: .quartile)
        #expect(sequence.count == 134)
        #expect(Array(sequence.prefix(8)) == [0, 15, 30, 46, 1, 16, 31, 47])
        #expect(Array(sequence[56..<62]) == [14, 29, 44, 60, 45, 61])
        let firstBlockCorrection = QRCode.ReedSolomon.remainder(Array(data[0..<15]), degree: 18)
        let lastBlockCorrection = QRCode.ReedSolomon.remainder(Array(data[46..<62]), degree: 18)
        #expect(sequence[62] == firstBlockCorrection[0])
        #expect(sequence[65] == lastBlockCorrection[0])
        #expect(sequence.last == lastBlockCorrection.last)
    }

    // MARK: Structure

    /// The three finders (7 × 7, dark ring, light ring, dark 3 × 3) with their light separators, none at the
    /// bottom right.
    @Test(arguments: ["a", String(repeating: "b", count: 300)])
    func findersAndSeparatorsAreInTheThreeCorners(text: String) throws {
        let code = try QRCode(text)
        let corners = [(0, 0), (code.size - 7, 0), (0, code.size - 7)]
        for (left, top) in corners {
            for dy in -1...7 {
                for dx in -1...7 {
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code.isDark(left + dx, top + dy) == (ring != 2 && ring != 4), "at \(left + dx),\(top + dy)")
                }
            }
        }
        let corner = code.size - 7
        let finderAtBottomRight = (0..<7).allSatisfy { dy in
            (0..<7).allSatisfy { dx in
                let ring = max(abs(dx - 3), abs(dy - 3))
                return code.isDark(corner + dx, corner + dy) == (ring != 2)
            }
        }
        #expect(!finderAtBottomRight)
    }

    @Test(arguments: [1, 100, 1000])
    func timingPatternsAlternateAndTheDarkModuleIsDark(length: Int) throws {
        let code = try QRCode(bytes: Array(repeating: 0x2E, count: length))
        for index in 8..<(code.size - 8) {
            #expect(code.isDark(index, 6) == index.isMultiple(of: 2), "row 6 at \(index)")
            #expect(code.isDark(6, index) == index.isMultiple(of: 2), "column 6 at \(index)")
        }
        #expect(code.isDark(8, code.size - 8))
    }

    /// Both copies of the format information read back as the level and the mask chosen, and both copies of the
    /// version information as the version (7 and later).
    @Test(arguments: QRCode.ErrorCorrection.allCases)
    func formatAndVersionInformationReadBack(correction: QRCode.ErrorCorrection) throws {
        for length in [5, 150, 400] {
            let code = try QRCode(bytes: Array(repeating: 0x51, count: length), correction: correction)
            let expected = QRCode.formatBits(correction, mask: code.mask)
            #expect(Self.formatCopies(code) == [expected, expected], "\(length) bytes")
            if code.version >= 7 {
                let version = QRCode.versionBits(code.version)
                #expect(Self.versionCopies(code) == [version, version], "\(length) bytes")
            }
        }
    }

    /// The mask chosen is the one whose penalty is lowest (the first of the lowest), and the masks differ.
    @Test func theChosenMaskHasTheLowestPenalty() throws {
        let bytes = Array("https://127.0.0.1:8443/ca.mobileconfig".utf8)
        let chosen = try QRCode(bytes: bytes)
        let data = QRCode.dataCodewords(bytes, version: chosen.version, correction: .medium)
        var grid = QRCode.Grid(version: chosen.version)
        grid.place(QRCode.interleaved(data, version: chosen.version, correction: .medium))
        let penalties = (0..<8).map { grid.masked($0, correction: .medium).penalty() }
        #expect(penalties.firstIndex(of: penalties.min() ?? 0) == chosen.mask)
        #expect(Set(penalties).count > 1)
    }

    /// The penalty rules on lines: runs of 5 or more, the finder-like pattern with four light modules on one side
    /// (the outside counts as light).
    @Test func penaltyRulesOnLines() {
        func line(_ text: String) -> [Bool] { text.map { $0 == "1" } }
        #expect(QRCode.Grid.runPenalty(line("1111")) == 0)
        #expect(QRCode.Grid.runPenalty(line("11111")) == 3)
        #expect(QRCode.Grid.runPenalty(line("0111111100000")) == 5 + 3)
        #expect(QRCode.Grid.finderLikePenalty(line("00001011101")) == 40)
        #expect(QRCode.Grid.finderLikePenalty(line("1011101")) == 40)
        #expect(QRCode.Grid.finderLikePenalty(line("1101011101011")) == 0)
    }

    @Test func theSameTextGivesTheSameSymbol() throws {
        #expect(try QRCode("squall") == QRCode("squall"))
        #expect(try QRCode("squall") != QRCode("squall", correction: .high))
    }

    // MARK: Rendering

    /// Two module rows a line, a light module drawn (█ ▀ ▄), a dark one left blank, the quiet zone light.
    @Test func terminalLinesDrawLightModulesAndTwoRowsALine() throws {
        let code = try QRCode("https://127.0.0.1:8443/ca.mobileconfig")
        let lines = code.terminalLines()
        #expect(lines.count == (code.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 4 })
        #expect(lines[0] == String(repeating: "█", count: code.size + 4))
        // Rows 0 and 1 of the finder: all dark, then dark over light inside it.
        let bare = code.terminalLines(quietZone: 0)
        #expect(bare.count == (code.size + 1) / 2)
        #expect(Array(bare[0].prefix(7)) == Array(" ▄▄▄▄▄ "))
        // The last line's lower half is below the symbol: drawn as dark (the terminal's background).
        #expect(bare[bare.count - 1].allSatisfy { $0 == " " || $0 == "▀" })
    }

    @Test func pbmIsPlainWithAQuietZoneAndFourPixelsAModule() throws {
        let code = try QRCode("squall")
        let lines = code.pbm().split(separator: "\n")
        let width = (code.size + 8) * 4
        try #require(lines.count > 2)
        #expect(lines[0] == "P1")
        #expect(String(lines[1]) == "\(width) \(width)")
        #expect(lines.dropFirst(2).allSatisfy { $0.count <= 70 })
        let pixels = lines.dropFirst(2).joined()
        #expect(pixels.count == width * width)
        let darkModules = (0..<code.size).flatMap { y in (0..<code.size).filter { code.isDark($0, y) } }.count
        #expect(pixels.filter { $0 == "1" }.count == 16 * darkModules)
        // The top left pixel of the finder: 4 modules of quiet zone in.
        let firstFinderRow = Array(pixels.dropFirst(16 * width).prefix(width))
        #expect(firstFinderRow[15] == "0" && firstFinderRow[16] == "1")
    }

    // MARK: Read back by a decoder

    static let roundTripTexts = [
        "https://127.0.0.1:8443/ca.mobileconfig", "x", Self.sample(length: 100), Self.sample(length: 250),
        "héllo wörld ✓ 日本語",
    ]

    /// zbarimg reads each text back from the PBM at every level.
    @Test(arguments: QRCodeTests.roundTripTexts, QRCode.ErrorCorrection.allCases)
    func zbarimgReadsTheTextBack(text: String, correction: QRCode.ErrorCorrection) throws {
        guard let zbarimg = Self.zbarimg() else {
            Issue.record("zbarimg is missing: install zbar-tools (Tools/setup.sh does) to read the symbols back")
            return
        }
        let code = try QRCode(text, correction: correction)
        #expect(try Self.decode(code, with: zbarimg) == text, "version \(code.version), mask \(code.mask)")
    }

    /// zbarimg reads the URL back under every mask.
    @Test(arguments: 0..<8)
    func zbarimgReadsEveryMask(mask: Int) throws {
        guard let zbarimg = Self.zbarimg() else {
            Issue.record("zbarimg is missing: install zbar-tools (Tools/setup.sh does) to read the symbols back")
            return
        }
        let text = "https://127.0.0.1:8443/ca.mobileconfig"
        let code = try QRCode(bytes: Array(text.utf8), correction: .medium, forcedMask: mask)
        #expect(code.mask == mask)
        #expect(try Self.decode(code, with: zbarimg) == text)
    }

    // MARK: Helpers

    /// A printable ASCII text of `length` bytes that is not a repetition of one character.
    static func sample(length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -._~:/?#@!$&'()*+,;=%")
        return String((0..<length).map { alphabet[($0 * 37 + $0 / 7) % alphabet.count] })
    }

    /// The format information as read from its two places, bit 0 first in the order the standard gives.
    static func formatCopies(_ code: QRCode) -> [Int] {
        let size = code.size
        let first: [(Int, Int)] =
            (0..<6).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
        let second: [(Int, Int)] = (0..<8).map { (size - 1 - $0, 8) } + (8..<15).map { (8, size - 15 + $0) }
        return [first, second].map { places in
            places.enumerated().reduce(0) { bits, place in
                bits | (code.isDark(place.element.0, place.element.1) ? 1 << place.offset : 0)
            }
        }
    }

    /// The version information as read from the block above the bottom left finder and the one left of the top
    /// right finder.
    static func versionCopies(_ code: QRCode) -> [Int] {
        let size = code.size
        return [true, false].map { bottomLeft in
            (0..<18).reduce(0) { bits, index in
                let across = size - 11 + index % 3
                let down = index / 3
                let isDark = bottomLeft ? code.isDark(down, across) : code.isDark(across, down)
                return bits | (isDark ? 1 << index : 0)
            }
        }
    }

    /// zbarimg on the PATH, nil when it is not installed.
    static func zbarimg() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/zbarimg" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// What zbarimg reads from the symbol's PBM, QR codes only (it otherwise finds spurious 1D barcodes in big
    /// symbols), without the newline it ends the text with.
    static func decode(_ code: QRCode, with zbarimg: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("squall-qr-\(UUID().uuidString).pbm")
        try code.pbm().write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zbarimg)
        process.arguments = ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "zbarimg found no QR code in version \(code.version)")
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") {
            text.removeLast()
        }
        return text
    }
}
