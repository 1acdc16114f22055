import CQREncode
import Glibc

/// Why a text has no QR code: it is empty, or longer than the largest symbol (version 40) holds at the chosen
/// level.
public struct QRCodeError: Error, Sendable, Hashable {
    /// What is wrong, for a message: "the text is 2400 bytes; a QR code at level M holds at most 2331 (version 40)".
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }
}

/// A QR code (ISO/IEC 18004, Model 2) of a byte string, so that a phone's camera can read what a terminal shows,
/// such as the URL of a profile to install. Encoded by libqrencode (Debian's `libqrencode-dev`): byte mode (UTF-8
/// for text, which scanners read as such), the smallest version from 1 to 40 that holds the bytes at the chosen
/// error correction level, the mask with the lowest penalty. The same text always gives the same symbol.
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol may be damaged or hidden and still read, at the cost of room for data: about 7 % of
    /// the codewords (`low`, L), 15 % (`medium`, M), 25 % (`quartile`, Q) or 30 % (`high`, H).
    public enum ErrorCorrection: Sendable, Hashable, CaseIterable {
        case low, medium, quartile, high

        /// The level's letter, for messages: L, M, Q or H.
        public var letter: String {
            switch self {
            case .low: "L"
            case .medium: "M"
            case .quartile: "Q"
            case .high: "H"
            }
        }

        /// The most bytes a version 40 symbol holds in byte mode at this level (ISO/IEC 18004 Table 7).
        public var largestByteCapacity: Int {
            switch self {
            case .low: 2953
            case .medium: 2331
            case .quartile: 1663
            case .high: 1273
            }
        }

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// The symbol's version, 1 to 40: its size is 17 + 4 × version modules.
    public let version: Int
    /// The number of modules on a side, without the quiet zone.
    public let size: Int
    /// The error correction level it was encoded at.
    public let correction: ErrorCorrection
    /// Row after row, true for a dark module.
    private let modules: [Bool]

    /// The QR code of `text`'s UTF-8 bytes.
    public init(_ text: String, correction: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), correction: correction)
    }

    /// The QR code of `bytes`, in the smallest version that holds them at `correction`.
    public init(bytes: [UInt8], correction: ErrorCorrection = .medium) throws(QRCodeError) {
        guard !bytes.isEmpty else { throw QRCodeError(reason: "the text is empty; there is nothing to encode") }
        let limit = correction.largestByteCapacity
        guard bytes.count <= limit else {
            throw QRCodeError(
                reason: "the text is \(bytes.count) bytes; a QR code at level \(correction.letter) holds at most "
                    + "\(limit) (version 40)")
        }
        // Version 0: the smallest that holds the data. libqrencode sets errno (ERANGE for too much data).
        let symbol = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, correction.level)
        }
        guard let symbol else {
            throw QRCodeError(reason: "libqrencode could not encode \(bytes.count) bytes (errno \(errno))")
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Each byte is one module; its lowest bit says dark.
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        self.version = Int(symbol.pointee.version)
        self.size = width
        self.correction = correction
        self.modules = data.map { $0 & 1 == 1 }
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
