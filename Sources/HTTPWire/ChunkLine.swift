/// Parses a chunk-size line, `chunk-size [ chunk-ext ]` (RFC 9112 §7.1, §7.1.1): the size in hexadecimal, then
/// extensions that are checked and ignored.
enum ChunkLine {
    /// The chunk size of `line` (without its CRLF), whose first byte is at stream `offset`.
    static func size(_ line: UnsafeBufferPointer<UInt8>, at offset: Int) throws(HTTPWireError) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = ByteClass.hexValue(line[index]) {
            guard size <= Int.max >> 4 else {
                throw HTTPWireError(.chunkSizeOverflow, "chunk size exceeds \(Int.max)", offset: offset)
            }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else {
            throw HTTPWireError(.invalidChunkSize, "chunk size is not 1*HEXDIG", offset: offset)
        }
        try checkExtensions(line, from: index, at: offset)
        return size
    }

    /// `*( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )`, ext-val a token or a quoted-string.
    private static func checkExtensions(
        _ line: UnsafeBufferPointer<UInt8>, from start: Int, at offset: Int
    ) throws(HTTPWireError) {
        var index = start
        while index < line.count {
            index = skipWhitespace(line, index)
            guard index < line.count, line[index] == ByteClass.semicolon else {
                throw HTTPWireError(.invalidChunkSize, "chunk size followed by junk", offset: offset + index)
            }
            index = skipWhitespace(line, index + 1)
            let nameEnd = skipToken(line, index)
            guard nameEnd > index else {
                throw HTTPWireError(.invalidChunkExtension, "chunk extension without a name", offset: offset + index)
            }
            index = skipWhitespace(line, nameEnd)
            guard index < line.count, line[index] == ByteClass.equals else { continue }
            index = skipWhitespace(line, index + 1)
            let valueEnd = try skipValue(line, index, at: offset)
            guard valueEnd > index else {
                throw HTTPWireError(.invalidChunkExtension, "chunk extension without a value", offset: offset + index)
            }
            index = valueEnd
        }
    }

    private static func skipWhitespace(_ line: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < line.count && ByteClass.isWhitespace(line[index]) { index += 1 }
        return index
    }

    private static func skipToken(_ line: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < line.count && ByteClass.isTokenChar(line[index]) { index += 1 }
        return index
    }

    /// The end of a token or quoted-string (RFC 9110 §5.6.4) starting at `start`.
    private static func skipValue(
        _ line: UnsafeBufferPointer<UInt8>, _ start: Int, at offset: Int
    ) throws(HTTPWireError) -> Int {
        guard start < line.count, line[start] == ByteClass.quote else { return skipToken(line, start) }
        var index = start + 1
        while index < line.count {
            let byte = line[index]
            if byte == ByteClass.quote { return index + 1 }
            if byte == ByteClass.backslash { index += 1 }
            guard index < line.count, ByteClass.isVisible(line[index]) || ByteClass.isWhitespace(line[index]) else {
                throw HTTPWireError(
                    .invalidChunkExtension, "bad byte in a quoted chunk extension", offset: offset + index)
            }
            index += 1
        }
        throw HTTPWireError(.invalidChunkExtension, "unterminated quoted chunk extension", offset: offset + start)
    }
}
