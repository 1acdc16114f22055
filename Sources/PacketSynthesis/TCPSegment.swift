/// The control bits of a TCP header (RFC 9293 §3.1).
public struct TCPFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let fin = TCPFlags(rawValue: 0x01)
    public static let syn = TCPFlags(rawValue: 0x02)
    public static let rst = TCPFlags(rawValue: 0x04)
    public static let psh = TCPFlags(rawValue: 0x08)
    public static let ack = TCPFlags(rawValue: 0x10)
}

/// The header fields of one synthesized TCP/IPv4 packet, and the code that lays it out with both checksums.
///
/// ```
/// 0        20                40 (44 on SYN)
/// | IPv4   | TCP header      | payload … |
/// ```
/// IPv4 (RFC 791 §3.1): version 4, IHL 5, total length, identification, DF, TTL, protocol 6, header checksum.
/// TCP (RFC 9293 §3.1): ports, sequence, acknowledgement, data offset, flags, window, checksum over the
/// pseudo-header (RFC 9293 §3.1, "Checksum"), urgent pointer 0; a SYN carries the MSS option (kind 2).
struct TCPSegment {
    /// IPv4 header bytes (no options).
    static let ipHeaderLength = 20
    /// The largest header this type writes: IPv4 + TCP + the MSS option.
    static let maximumHeaderLength = 44
    /// The largest payload an IPv4 datagram of 16-bit total length can carry after both headers.
    static let largestPayload = 65_535 - 40

    var source: IPv4Endpoint
    var destination: IPv4Endpoint
    var flags: TCPFlags
    var sequence: UInt32
    var acknowledgement: UInt32
    var identification: UInt16
    var window: UInt16
    var timeToLive: UInt8
    /// The MSS option's value, written only on a SYN.
    var maximumSegmentOption: UInt16

    /// TCP header bytes: 20, or 24 with the MSS option.
    var tcpHeaderLength: Int { flags.contains(.syn) ? 24 : 20 }

    /// Writes the datagram for `payload` at the start of `buffer` (which must hold it) and returns its length.
    func write(payload: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let tcpLength = tcpHeaderLength + payload.count
        let total = Self.ipHeaderLength + tcpLength
        precondition(payload.count <= Self.largestPayload && buffer.count >= total, "segment does not fit")
        writeIPv4Header(totalLength: total, into: buffer)
        writeTCPHeader(into: UnsafeMutableRawBufferPointer(rebasing: buffer[Self.ipHeaderLength...]))
        let payloadStart = Self.ipHeaderLength + tcpHeaderLength
        if let source = payload.baseAddress, !payload.isEmpty {
            (buffer.baseAddress! + payloadStart).copyMemory(from: source, byteCount: payload.count)
        }
        let segment = UnsafeRawBufferPointer(rebasing: buffer[Self.ipHeaderLength..<total])
        let pseudoHeader = pseudoHeaderSum(buffer: buffer, tcpLength: tcpLength)
        let checksum = ~InternetChecksum.fold(InternetChecksum.sum(segment, adding: pseudoHeader))
        buffer.storeBytes(of: checksum, toByteOffset: Self.ipHeaderLength + 16, as: UInt16.self)
        return total
    }

    private func writeIPv4Header(totalLength: Int, into buffer: UnsafeMutableRawBufferPointer) {
        buffer.storeBytes(of: 0x45, toByteOffset: 0, as: UInt8.self)
        buffer.storeBytes(of: 0, toByteOffset: 1, as: UInt8.self)
        buffer.storeBytes(of: UInt16(totalLength).bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: identification.bigEndian, toByteOffset: 4, as: UInt16.self)
        buffer.storeBytes(of: UInt16(0x4000).bigEndian, toByteOffset: 6, as: UInt16.self)
        buffer.storeBytes(of: timeToLive, toByteOffset: 8, as: UInt8.self)
        buffer.storeBytes(of: 6, toByteOffset: 9, as: UInt8.self)
        buffer.storeBytes(of: 0, toByteOffset: 10, as: UInt16.self)
        buffer.storeBytes(of: source.address.bigEndian, toByteOffset: 12, as: UInt32.self)
        buffer.storeBytes(of: destination.address.bigEndian, toByteOffset: 16, as: UInt32.self)
        let header = UnsafeRawBufferPointer(rebasing: buffer[..<Self.ipHeaderLength])
        buffer.storeBytes(of: ~InternetChecksum.fold(InternetChecksum.sum(header)), toByteOffset: 10, as: UInt16.self)
    }

    private func writeTCPHeader(into buffer: UnsafeMutableRawBufferPointer) {
        buffer.storeBytes(of: source.port.bigEndian, toByteOffset: 0, as: UInt16.self)
        buffer.storeBytes(of: destination.port.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: sequence.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: acknowledgement.bigEndian, toByteOffset: 8, as: UInt32.self)
        buffer.storeBytes(of: UInt8(tcpHeaderLength / 4) << 4, toByteOffset: 12, as: UInt8.self)
        buffer.storeBytes(of: flags.rawValue, toByteOffset: 13, as: UInt8.self)
        buffer.storeBytes(of: window.bigEndian, toByteOffset: 14, as: UInt16.self)
        buffer.storeBytes(of: 0, toByteOffset: 16, as: UInt32.self)
        if flags.contains(.syn) {
            buffer.storeBytes(of: UInt16(0x0204).bigEndian, toByteOffset: 20, as: UInt16.self)
            buffer.storeBytes(of: maximumSegmentOption.bigEndian, toByteOffset: 22, as: UInt16.self)
        }
    }

    /// The native-order sum of the pseudo-header: both addresses (already in the IPv4 header), zero, protocol 6
    /// and the TCP length.
    private func pseudoHeaderSum(buffer: UnsafeMutableRawBufferPointer, tcpLength: Int) -> UInt64 {
        let addresses = UnsafeRawBufferPointer(rebasing: buffer[12..<20])
        return InternetChecksum.sum(
            addresses, adding: UInt64(UInt16(6).bigEndian) + UInt64(UInt16(tcpLength).bigEndian))
    }
}
