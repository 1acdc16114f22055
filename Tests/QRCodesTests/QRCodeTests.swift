import Foundation
import QRCodes
import Testing

/// QR codes through libqrencode: the smallest version that holds the text at each level, the refusal past version
/// 40, the finders where the standard puts them, the terminal and PBM renderings, and every symbol read back by a
/// real decoder (zbarimg, from zbar-tools, which Tools/setup.sh installs).
struct QRCodeTests {
    @Test(
        arguments: [
            (14, QRCode.ErrorCorrection.medium, 1), (15, .medium, 2), (26, .medium, 2), (27, .medium, 3),
            (42, .medium, 3), (43, .medium, 4), (213, .medium, 10), (214, .medium, 11), (17, .low, 1), (18, .low, 2),
            (11, .quartile, 1), (12, .quartile, 2), (7, .high, 1), (8, .high, 2), (1, .medium, 1),
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

    @Test func anEmptyTextIsRefusedSayingSo() {
        #expect {
            try QRCode("")
        } throws: { error in
            (error as? QRCodeError)?.reason == "the text is empty; there is nothing to encode"
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
        #expect(try Self.decode(code, with: zbarimg) == text, "version \(code.version)")
    }

    // MARK: Helpers

    /// A printable ASCII text of `length` bytes that is not a repetition of one character.
    static func sample(length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -._~:/?#@!$&'()*+,;=%")
        return String((0..<length).map { alphabet[($0 * 37 + $0 / 7) % alphabet.count] })
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
