/// CRC-32 as zlib, PNG and Ethernet compute it (ISO-HDLC: reflected polynomial 0xEDB88320, initial value and
/// final xor 0xFFFFFFFF). `CRC32.checksum("123456789")` is 0xCBF43926.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let array = Array(bytes)
        return array.withUnsafeBytes { checksum($0) }
    }
}
