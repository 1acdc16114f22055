/// The framing of journal records and snapshots.
///
/// ```
/// ┌────────┬────────────────┬───────────────┬─────────────────────────┐
/// │ length │ CRC32(payload) │ CRC32(bytes   │ payload: `length` bytes │
/// │ u32 LE │ u32 LE         │ 0..<8) u32 LE │ of JSON                 │
/// └────────┴────────────────┴───────────────┴─────────────────────────┘
/// ```
/// The third word checks the first two, so a damaged length is told apart from a record whose write was cut
/// short: a short file after a good header is a torn tail; a bad header is damage (unless every byte from it to
/// the end of the file is zero, which is what a file extended but never written looks like after power loss).
enum JournalFrame {
    static let headerSize = 12

    /// A checked header.
    struct Header {
        var length: Int
        var payloadCRC: UInt32
    }

    /// Frames `payload`.
    static func encode(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + payload.count)
        append(UInt32(payload.count), to: &bytes)
        append(CRC32.checksum(payload), to: &bytes)
        append(CRC32.checksum(bytes), to: &bytes)
        bytes += payload
        return bytes
    }

    /// The header in `bytes` (exactly `headerSize` of them), or nil when its check word does not match.
    static func header(_ bytes: ArraySlice<UInt8>) -> Header? {
        let start = bytes.startIndex
        guard bytes.count == headerSize, word(bytes, start + 8) == CRC32.checksum(bytes[start..<start + 8]) else {
            return nil
        }
        return Header(length: Int(word(bytes, start)), payloadCRC: word(bytes, start + 4))
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    private static func word(_ bytes: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        (0..<4).reduce(0) { value, byte in value | UInt32(bytes[index + byte]) << UInt32(8 * byte) }
    }
}
