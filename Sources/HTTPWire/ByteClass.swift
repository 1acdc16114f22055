/// Byte classes of the HTTP grammar (RFC 9110 §5.6, RFC 9112, RFC 3986), as bit masks over ASCII.
enum ByteClass {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let comma: UInt8 = 0x2C
    static let slash: UInt8 = 0x2F
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let backslash: UInt8 = 0x5C
    static let star: UInt8 = 0x2A

    /// tchar: `!#$%&'*+-.^_`|~`, DIGIT, ALPHA (RFC 9110 §5.6.2).
    private static let tokenLow: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tokenHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE
    /// RFC 3986 characters allowed in a request-target: unreserved, sub-delims, `:/?[]@` and `%` (no `#`).
    private static let targetLow: UInt64 = 0xAFFF_FFF2_0000_0000
    private static let targetHigh: UInt64 = 0x47FF_FFFE_AFFF_FFFF

    @inline(__always) private static func matches(_ byte: UInt8, _ low: UInt64, _ high: UInt64) -> Bool {
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 == 1 }
        return false
    }

    @inline(__always) static func isTokenChar(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26 || matches(byte, tokenLow, tokenHigh)
    }

    @inline(__always) static func isTargetChar(_ byte: UInt8) -> Bool {
        matches(byte, targetLow, targetHigh)
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// VCHAR or obs-text: a visible byte of a field value, reason phrase or quoted string (RFC 9110 §5.5).
    @inline(__always) static func isVisible(_ byte: UInt8) -> Bool {
        byte > space && byte != 0x7F
    }

    /// The value of a hexadecimal digit, or nil.
    @inline(__always) static func hexValue(_ byte: UInt8) -> Int? {
        if isDigit(byte) { return Int(byte &- 0x30) }
        let lower = byte | 0x20
        if lower >= 0x61 && lower <= 0x66 { return Int(lower &- 0x61 &+ 10) }
        return nil
    }

    /// ASCII-lowercased byte.
    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Whether `bytes` spell `lowercase`, made of lowercase letters and `-`, ignoring ASCII case: they may differ
    /// only in bit 5, and only where `lowercase` has a letter (bit 6 set). Words of 8 bytes or more are compared
    /// 8 bytes at a time.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        let count = bytes.count
        guard count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        guard count >= 8, let actual = bytes.baseAddress else {
            for index in 0..<count where (bytes[index] ^ expected[index]) & ~((expected[index] & 0x40) >> 1) != 0 {
                return false
            }
            return true
        }
        var index = 0
        while index < count {
            let at = min(index, count - 8)
            let word = UnsafeRawPointer(actual + at).loadUnaligned(as: UInt64.self)
            let spelled = UnsafeRawPointer(expected + at).loadUnaligned(as: UInt64.self)
            if (word ^ spelled) & ~((spelled & 0x4040_4040_4040_4040) >> 1) != 0 { return false }
            index += 8
        }
        return true
    }

    /// Whether two byte sequences are equal ignoring ASCII case (field names, tokens).
    static func equalsIgnoringCase(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs) { lowercased($0) == lowercased($1) }
    }

    /// The index of the first `target` byte in `buffer` at or after `start`, or `buffer.count`; reads 8 bytes at
    /// a time (the zero-byte test of "Bit Twiddling Hacks").
    @inline(__always)
    static func firstIndex(of target: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = buffer.baseAddress {
            let pattern = UInt64(target) &* ones
            while index + 8 <= buffer.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) ^ pattern
                let zeroBytes = (word &- ones) & ~word & highBits
                if zeroBytes != 0 { return index + zeroBytes.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < buffer.count && buffer[index] != target { index += 1 }
        return index
    }

    /// Whether the 8 bytes at `index` are all visible bytes or spaces (no control byte, no DEL), checked at once.
    @inline(__always)
    static func isPlainText(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
        let belowSpace = (word &- space64) & ~word & highBits
        let delete = word ^ (0x7F &* ones)
        let deleteBytes = (delete &- ones) & ~delete & highBits
        return belowSpace | deleteBytes == 0
    }

    /// Whether the 8 bytes at `index` are all ASCII letters or `-`, as most field-name bytes are, checked at once.
    @inline(__always)
    static func isLettersOrDashes(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
        guard word & highBits == 0 else { return false }
        let lower = word | space64
        let letters = (lower &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(lower &+ 0x0505_0505_0505_0505) & highBits
        let dash = word ^ (0x2D &* ones)
        let dashes = ~(((dash & ~highBits) &+ ~highBits) | dash) & highBits
        return letters | dashes == highBits
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let space64: UInt64 = 0x2020_2020_2020_2020

    /// Calls `body` with each comma-separated element of `bytes`, trimmed, empty elements included; for lists of
    /// tokens, which have no quoted strings.
    @inline(__always)
    static func forEachElement<E: Error>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) throws(E) -> Void
    ) throws(E) {
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == comma {
            try body(trimmed(bytes, start..<index))
            start = index + 1
        }
    }

    /// Offsets of the list elements of a field value, split on commas outside quoted strings, with surrounding
    /// whitespace trimmed; empty elements are dropped (RFC 9110 §5.6.1).
    static func listElements(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var elements: [Range<Int>] = []
        var start = 0
        var index = 0
        var inQuotes = false
        while index <= bytes.count {
            let byte = index < bytes.count ? bytes[index] : comma
            if inQuotes {
                if byte == backslash { index += 1 } else if byte == quote { inQuotes = false }
            } else if byte == quote {
                inQuotes = true
            } else if byte == comma {
                let element = trimmed(bytes, start..<min(index, bytes.count))
                if !element.isEmpty { elements.append(element) }
                start = index + 1
            }
            index += 1
        }
        if inQuotes {
            let element = trimmed(bytes, start..<bytes.count)
            if !element.isEmpty { elements.append(element) }
        }
        return elements
    }

    /// `range` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower && isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }
}
