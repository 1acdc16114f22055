/// Upload ids: 128 random bits as 32 lowercase hex digits, safe in a URL path and as a folder name.
public enum UploadID {
    /// The length of an id in characters.
    public static let length = 32

    /// A fresh id from the system's cryptographically secure generator.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// An id drawn from `generator` (tests pass a seeded one).
    public static func generate(using generator: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(length)
        for _ in 0..<2 {
            var word = generator.next()
            for _ in 0..<16 {
                text.append(digits[Int(word & 0x0F)])
                word >>= 4
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` has the form of an id (32 characters from `0-9a-f`).
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == length && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
