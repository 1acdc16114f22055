import TLSKit
import Testing

struct SHA256DigestTests {
    // FIPS 180-4 / NIST example vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(SHA256Digest.hex(of: Array(input.utf8)) == expected)
    }

    @Test func chunkedUpdatesEqualOneUpdate() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let digest = SHA256Digest()
        var index = 0
        var step = 1
        while index < bytes.count {
            let end = min(bytes.count, index + step)
            digest.update(bytes[index..<end])
            index = end
            step = step * 3 % 4093 + 1
        }
        #expect(SHA256Digest.hexString(digest.finalize()) == SHA256Digest.hex(of: bytes))
        #expect(SHA256Digest.hex(of: bytes) != SHA256Digest.hex(of: bytes.dropLast()))
    }
}
