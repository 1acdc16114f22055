import JobJournal
import Testing

struct CRC32Tests {
    @Test(
        arguments: [
            ("", 0x0000_0000), ("a", 0xE8B7_BE43), ("123456789", 0xCBF4_3926),
            ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
        ] as [(String, UInt32)])
    func knownVectors(text: String, crc: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == crc)
    }

    @Test func everyBitFlipChangesTheChecksum() {
        let bytes = Array("squall journal record".utf8)
        let original = CRC32.checksum(bytes)
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                #expect(CRC32.checksum(flipped) != original)
            }
        }
    }
}
