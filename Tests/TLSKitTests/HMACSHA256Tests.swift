import TLSKit
import Testing

/// HMAC-SHA-256 against the test vectors of RFC 4231 §4.
struct HMACSHA256Tests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test func rfc4231Case1() {
        let code = HMACSHA256.authenticate(Array("Hi There".utf8), key: [UInt8](repeating: 0x0B, count: 20))
        #expect(
            MessageDigest.hexString(code) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func rfc4231Case2ShortKey() {
        let code = HMACSHA256.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(
            MessageDigest.hexString(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func rfc4231Case6KeyLongerThanABlock() {
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        let code = HMACSHA256.authenticate(message, key: [UInt8](repeating: 0xAA, count: 131))
        #expect(
            MessageDigest.hexString(code) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func equalityComparesEveryByte() {
        let code = HMACSHA256.authenticate([1, 2, 3], key: [9])
        var forged = code
        forged[31] ^= 1
        #expect(HMACSHA256.equal(code, code))
        #expect(!HMACSHA256.equal(code, forged))
        #expect(!HMACSHA256.equal(code, Array(code.dropLast())))
        #expect(!HMACSHA256.equal(code, HMACSHA256.authenticate([1, 2, 3], key: [8])))
    }
}
