/// Base64 with the standard alphabet and `=` padding (RFC 4648 §4), for Byte Sequences (RFC 8941 §3.3.5).
enum Base64 {
    /// Why decoding failed and at which position of the encoded text.
    struct Failure: Error {
        let position: Int
        let reason: String
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let padding = UInt8(ascii: "=")

    /// `bytes` encoded, padded with `=` to a multiple of four characters (§4.1.8 requires padding).
    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group = 0
            for (offset, byte) in chunk.enumerated() {
                group |= Int(byte) << (16 - 8 * offset)
            }
            for sextet in 0..<4 {
                let character = alphabet[(group >> (18 - 6 * sextet)) & 0x3F]
                output.append(sextet <= chunk.count ? character : padding)
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `encoded` stands for.
    ///
    /// Per RFC 8941 §4.2.7, missing `=` padding and non-zero pad bits are accepted; characters outside the
    /// alphabet, data after padding, a lone trailing character and the wrong amount of padding are not.
    static func decode(_ encoded: ArraySlice<UInt8>) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(encoded.count / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bitCount = 0
        var dataCount = 0
        var paddingCount = 0
        for (position, byte) in encoded.enumerated() {
            if byte == padding {
                paddingCount += 1
                continue
            }
            guard paddingCount == 0 else { throw Failure(position: position, reason: "data after '=' padding") }
            guard let sextet = value(of: byte) else {
                throw Failure(position: position, reason: "\(ASCII.describe(byte)) is not a base64 character")
            }
            accumulator = (accumulator << 6) | sextet
            bitCount += 6
            dataCount += 1
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
                accumulator &= (1 << UInt32(bitCount)) - 1
            }
        }
        try checkLength(dataCount: dataCount, paddingCount: paddingCount, end: encoded.count)
        return output
    }

    private static func checkLength(dataCount: Int, paddingCount: Int, end: Int) throws(Failure) {
        if dataCount % 4 == 1 {
            throw Failure(position: end, reason: "a lone trailing base64 character encodes no byte")
        }
        if paddingCount > 0 && (paddingCount > 2 || (dataCount + paddingCount) % 4 != 0) {
            throw Failure(position: end, reason: "\(paddingCount) '=' after \(dataCount) characters is wrong padding")
        }
    }

    private static func value(of byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
