extension FieldReader {
    /// Parsing a Bare Item (§4.2.3.1): the first character selects the type.
    mutating func readBareItem() throws(StructuredFieldError) -> BareItem {
        guard let byte = peek else { throw failure(.unexpectedEndOfInput, "expected a value") }
        if byte == ASCII.minus || ASCII.isDigit(byte) { return try readNumber() }
        if byte == ASCII.quote { return try readString() }
        if ASCII.isTokenStart(byte) { return readToken() }
        if byte == ASCII.colon { return try readByteSequence() }
        if byte == ASCII.question { return try readBoolean() }
        throw failure(.unexpectedCharacter, "a value cannot start with \(ASCII.describe(byte))")
    }

    /// Parsing an Integer or Decimal (§4.2.4): at most 15 integer digits, or 12 integer digits, `.` and one
    /// to three fractional digits. The Decimal is built exactly, in thousandths.
    private mutating func readNumber() throws(StructuredFieldError) -> BareItem {
        let start = index
        let negative = peek == ASCII.minus
        if negative { advance() }
        guard let first = peek, ASCII.isDigit(first) else {
            throw failure(.invalidInteger, "'-' must be followed by a digit")
        }
        guard let (integerPart, integerDigits) = readDigits(limit: 15) else {
            throw failure(.integerOutOfRange, "an Integer has at most 15 digits", at: start)
        }
        guard peek == ASCII.dot else { return .integer(negative ? -integerPart : integerPart) }
        guard integerDigits <= 12 else {
            throw failure(.decimalOutOfRange, "a Decimal has at most 12 integer digits", at: start)
        }
        advance()
        guard let (fractionValue, fractionDigits) = readDigits(limit: 3) else {
            throw failure(.invalidDecimal, "a Decimal has at most 3 fractional digits")
        }
        guard fractionDigits > 0 else { throw failure(.invalidDecimal, "a Decimal must not end with '.'") }
        var fraction = fractionValue
        for _ in fractionDigits..<3 {
            fraction *= 10
        }
        let thousandths = integerPart * 1000 + fraction
        return .decimal(StructuredDecimal(thousandths: negative ? -thousandths : thousandths))
    }

    /// Reads consecutive digits as a number; nil, stopped at the extra digit, when there are more than `limit`.
    private mutating func readDigits(limit: Int) -> (value: Int64, count: Int)? {
        var value: Int64 = 0
        var count = 0
        while let byte = peek, ASCII.isDigit(byte) {
            guard count < limit else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            count += 1
            advance()
        }
        return (value, count)
    }

    /// Parsing a String (§4.2.5): printable ASCII between quotes; `\` may only escape `"` or `\`.
    private mutating func readString() throws(StructuredFieldError) -> BareItem {
        let start = index
        advance()
        var characters: [UInt8] = []
        while let byte = peek {
            advance()
            if byte == ASCII.quote {
                return .string(String(decoding: characters, as: UTF8.self))
            }
            if byte == ASCII.backslash {
                guard let escaped = peek else { break }
                guard escaped == ASCII.quote || escaped == ASCII.backslash else {
                    throw failure(.invalidString, "'\\' may only escape '\"' or '\\', not \(ASCII.describe(escaped))")
                }
                characters.append(escaped)
                advance()
            } else if ASCII.isPrintable(byte) {
                characters.append(byte)
            } else {
                throw failure(.invalidString, "\(ASCII.describe(byte)) is not allowed in a String", at: index - 1)
            }
        }
        throw failure(.invalidString, "the String opened at offset \(start) is not closed")
    }

    /// Parsing a Token (§4.2.6): the caller has seen ALPHA or `*`; the Token runs while tchar, `:` or `/`.
    private mutating func readToken() -> BareItem {
        let start = index
        advance()
        while let byte = peek, ASCII.isTokenCharacter(byte) {
            advance()
        }
        return .token(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// Parsing a Byte Sequence (§4.2.7): base64 between colons.
    private mutating func readByteSequence() throws(StructuredFieldError) -> BareItem {
        let start = index
        advance()
        guard let end = bytes[index...].firstIndex(of: ASCII.colon) else {
            throw failure(.invalidByteSequence, "the Byte Sequence opened at offset \(start) is not closed", at: start)
        }
        let decoded: [UInt8]
        do {
            decoded = try Base64.decode(bytes[index..<end])
        } catch {
            throw failure(.invalidByteSequence, error.reason, at: index + error.position)
        }
        index = end + 1
        return .byteSequence(decoded)
    }

    /// Parsing a Boolean (§4.2.8): `?1` or `?0`.
    private mutating func readBoolean() throws(StructuredFieldError) -> BareItem {
        advance()
        switch peek {
        case UInt8(ascii: "1"):
            advance()
            return .boolean(true)
        case UInt8(ascii: "0"):
            advance()
            return .boolean(false)
        default:
            throw failure(.invalidBoolean, "'?' must be followed by '0' or '1'")
        }
    }
}
