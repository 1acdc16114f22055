import PacketSynthesis
import TestSupport
import Testing

struct InternetChecksumTests {
    private func checksum(_ bytes: [UInt8]) -> UInt16 {
        bytes.withUnsafeBytes { InternetChecksum.checksum($0) }
    }

    /// The checksum a byte-by-byte RFC 1071 sum gives.
    private func reference(_ bytes: [UInt8]) -> UInt16 {
        ~UInt16(ParsedPacket.referenceSum(bytes))
    }

    @Test func rfc1071Example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (with carries folded); the checksum is its
        // complement.
        #expect(checksum([0x00, 0x01, 0xF2, 0x03, 0xF4, 0xF5, 0xF6, 0xF7]) == 0x220D)
    }

    @Test func ipv4HeaderByHand() {
        // 4500 0073 0000 4000 4011 [0000] c0a8 0001 c0a8 00c7: sum 0x479C after the carry, checksum 0xB861.
        let header: [UInt8] = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xC0, 0xA8, 0x00, 0x01, 0xC0, 0xA8,
            0x00, 0xC7,
        ]
        #expect(checksum(header) == 0xB861)
        var withChecksum = header
        withChecksum[10] = 0xB8
        withChecksum[11] = 0x61
        #expect(checksum(withChecksum) == 0)
    }

    @Test func emptyAndOddInputs() {
        #expect(checksum([]) == 0xFFFF)
        #expect(checksum([0x12]) == ~UInt16(0x1200))
        #expect(checksum([0x12, 0x34, 0x56]) == ~UInt16(0x1234 + 0x5600))
        #expect(checksum([0xFF, 0xFF]) == 0)
    }

    @Test func carriesFromManyMaximalWords() {
        let ones = [UInt8](repeating: 0xFF, count: 65_537)
        #expect(checksum(ones) == reference(ones))
        let pattern = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        #expect(checksum(pattern) == reference(pattern))
    }

    @Test(arguments: [1, 2, 3])
    func agreesWithByteByByteSumOnRandomData(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let count = Int.random(in: 0...300, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(checksum(bytes) == reference(bytes), "\(count) bytes")
        }
    }

    @Test func unalignedStartGivesTheSameChecksum() {
        let bytes = (0..<103).map { UInt8(truncatingIfNeeded: $0 * 37) }
        let padded = [0xAA] + bytes
        let shifted = padded.withUnsafeBytes { InternetChecksum.checksum(UnsafeRawBufferPointer(rebasing: $0[1...])) }
        #expect(shifted == reference(bytes))
        #expect(shifted != reference(padded))
    }
}
