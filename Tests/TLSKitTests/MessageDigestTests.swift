import TLSKit
import Testing

struct MessageDigestTests {
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
        #expect(MessageDigest.hex(of: Array(input.utf8)) == expected)
    }

    @Test func chunkedUpdatesEqualOneUpdate() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let digest = MessageDigest(.sha256)
        var index = 0
        var step = 1
        while index < bytes.count {
            let end = min(bytes.count, index + step)
            digest.update(bytes[index..<end])
            index = end
            step = step * 3 % 4093 + 1
        }
        #expect(MessageDigest.hexString(digest.finalize()) == MessageDigest.hex(of: bytes))
        #expect(MessageDigest.hex(of: bytes) != MessageDigest.hex(of: bytes.dropLast()))
    }

    // FIPS 180-4 example vectors for SHA-512; a SHA-256 of the same input differs.
    @Test func sha512KnownVectors() {
        #expect(
            MessageDigest.hexString(MessageDigest.digest(of: Array("abc".utf8), .sha512))
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(MessageDigest.digest(of: [], .sha512).count == 64)
        #expect(MessageDigest.digest(of: Array("abc".utf8), .sha256).count == 32)
    }

    @Test func theCurrentDigestLeavesTheRunningOneGoingOn() {
        let digest = MessageDigest(.sha512)
        digest.update(Array("ab".utf8))
        #expect(digest.current() == MessageDigest.digest(of: Array("ab".utf8), .sha512))
        digest.update(Array("c".utf8))
        #expect(digest.finalize() == MessageDigest.digest(of: Array("abc".utf8), .sha512))
    }
}
