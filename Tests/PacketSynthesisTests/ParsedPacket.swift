import PacketSynthesis

/// A synthesized packet read back field by field, with both checksums recomputed byte by byte (independently of
/// `InternetChecksum`, which sums machine words).
struct ParsedPacket {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u16(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]) }
    func u32(_ offset: Int) -> UInt32 { UInt32(u16(offset)) << 16 | UInt32(u16(offset + 2)) }

    var versionAndLength: UInt8 { bytes[0] }
    var totalLength: Int { Int(u16(2)) }
    var identification: UInt16 { u16(4) }
    var fragmentField: UInt16 { u16(6) }
    var timeToLive: UInt8 { bytes[8] }
    var proto: UInt8 { bytes[9] }
    var sourceAddress: UInt32 { u32(12) }
    var destinationAddress: UInt32 { u32(16) }
    var sourcePort: UInt16 { u16(20) }
    var destinationPort: UInt16 { u16(22) }
    var sequence: UInt32 { u32(24) }
    var acknowledgement: UInt32 { u32(28) }
    var tcpHeaderLength: Int { Int(bytes[32] >> 4) * 4 }
    var flags: TCPFlags { TCPFlags(rawValue: bytes[33]) }
    var window: UInt16 { u16(34) }
    var urgentPointer: UInt16 { u16(38) }
    var payload: [UInt8] { Array(bytes[(20 + tcpHeaderLength)...]) }
    /// The MSS option's value when the header carries one as its first option.
    var maximumSegmentOption: UInt16? {
        tcpHeaderLength >= 24 && bytes[40] == 2 && bytes[41] == 4 ? u16(42) : nil
    }

    /// RFC 1071 the slow way: big-endian 16-bit words, an odd last byte padded on the right, carries folded.
    static func referenceSum(_ data: [UInt8]) -> UInt32 {
        var sum: UInt32 = 0
        var index = 0
        while index < data.count {
            let high = UInt32(data[index]) << 8
            let low = index + 1 < data.count ? UInt32(data[index + 1]) : 0
            sum += high | low
            sum = (sum & 0xFFFF) + (sum >> 16)
            index += 2
        }
        return sum
    }

    /// Whether the IPv4 header sums to 0xFFFF including its checksum field.
    var ipChecksumIsValid: Bool { Self.referenceSum(Array(bytes[0..<20])) == 0xFFFF }

    /// Whether the TCP segment plus pseudo-header sums to 0xFFFF including its checksum field.
    var tcpChecksumIsValid: Bool {
        let segment = Array(bytes[20...])
        let length = UInt16(segment.count)
        let pseudo = Array(bytes[12..<20]) + [0, 6, UInt8(length >> 8), UInt8(length & 0xFF)]
        return Self.referenceSum(pseudo + segment) == 0xFFFF
    }

    /// Both checksums valid and the IPv4 fields this project always writes.
    var isWellFormed: Bool {
        ipChecksumIsValid && tcpChecksumIsValid && versionAndLength == 0x45 && totalLength == bytes.count
            && proto == 6 && fragmentField == 0x4000 && urgentPointer == 0
    }
}
