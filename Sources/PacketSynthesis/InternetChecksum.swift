/// The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit words.
///
/// The sum is taken over native-order 32-bit loads into a 64-bit accumulator and folded at the end; RFC 1071 §2
/// (B) "byte order independence" makes the folded result the byte-swapped network sum on a little-endian machine,
/// so a checksum stored back with a native-order store lands in network order.
public enum InternetChecksum {
    /// The checksum of `bytes` as a number in network meaning (RFC 1071 §3's example gives `0x220D`).
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        UInt16(bigEndian: ~fold(sum(bytes)))
    }

    /// The native-order ones' complement sum of `bytes` added to `initial`, unfolded.
    ///
    /// `bytes` must start at an even offset of the checksummed data; exact for inputs below 16 GiB.
    static func sum(_ bytes: UnsafeRawBufferPointer, adding initial: UInt64 = 0) -> UInt64 {
        guard let base = bytes.baseAddress else { return initial }
        let count = bytes.count
        var total = initial
        let words = count / 4
        for word in 0..<words {
            total &+= UInt64(base.loadUnaligned(fromByteOffset: word &* 4, as: UInt32.self))
        }
        var offset = words * 4
        if count - offset >= 2 {
            total &+= UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            offset += 2
        }
        if offset < count {
            // RFC 1071 §4.1: an odd last byte is padded with a zero byte on its right.
            var padded: UInt16 = 0
            withUnsafeMutableBytes(of: &padded) { $0[0] = base.load(fromByteOffset: offset, as: UInt8.self) }
            total &+= UInt64(padded)
        }
        return total
    }

    /// Folds a native-order sum into 16 bits with end-around carries.
    static func fold(_ sum: UInt64) -> UInt16 {
        var folded = sum
        while folded > 0xFFFF {
            folded = (folded & 0xFFFF) &+ (folded >> 16)
        }
        return UInt16(folded)
    }
}
