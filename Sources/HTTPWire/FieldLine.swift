/// Splits one field line, `field-name ":" OWS field-value OWS` (RFC 9112 §5, RFC 9110 §5.1, §5.5), strictly.
enum FieldLine {
    /// The name and the trimmed value of `line` (without its CRLF), whose first byte is at stream `offset`.
    @inline(__always)
    static func split(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int
    ) throws(HTTPWireError) -> (name: Range<Int>, value: Range<Int>) {
        if ByteClass.isWhitespace(line[0]) {
            throw HTTPWireError(.obsoleteLineFolding, "field line starts with whitespace", offset: offset)
        }
        // Most names are letters and dashes: check them 8 bytes at a time up to the first colon, the last 8
        // possibly overlapping; any other byte is checked one by one.
        let colon = ByteClass.firstIndex(of: ByteClass.colon, in: line, from: 0)
        var index = 0
        while index + 8 <= colon && ByteClass.isLettersOrDashes(line, at: index) { index += 8 }
        if index + 8 > colon && colon >= 8 && colon < line.count && ByteClass.isLettersOrDashes(line, at: colon - 8) {
            index = colon
        }
        while index < line.count && ByteClass.isTokenChar(line[index]) { index += 1 }
        guard index < line.count, line[index] == ByteClass.colon else {
            throw nameError(line, at: index, offset: offset)
        }
        guard index > 0 else {
            throw HTTPWireError(.invalidFieldName, "empty field name", offset: offset)
        }
        let name = 0..<index
        index += 1
        while index < line.count && ByteClass.isWhitespace(line[index]) { index += 1 }
        let valueStart = index
        while index + 8 <= line.count && ByteClass.isPlainText(line, at: index) { index += 8 }
        while index < line.count {
            let byte = line[index]
            guard ByteClass.isVisible(byte) || ByteClass.isWhitespace(byte) else {
                throw valueError(byte, offset: offset + index)
            }
            index += 1
        }
        var valueEnd = line.count
        while valueEnd > valueStart && ByteClass.isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        return (name, valueStart..<valueEnd)
    }

    /// The error for the byte at `index`, the first of `line` that is not part of a valid name and colon.
    private static func nameError(_ line: UnsafeBufferPointer<UInt8>, at index: Int, offset: Int) -> HTTPWireError {
        guard index < line.count else {
            return HTTPWireError(.invalidFieldName, "field line without a colon", offset: offset)
        }
        let byte = line[index]
        if ByteClass.isWhitespace(byte),
            line[index...].first(where: { !ByteClass.isWhitespace($0) }) == ByteClass.colon
        {
            return HTTPWireError(
                .whitespaceBeforeColon, "whitespace between field name and colon", offset: offset + index)
        }
        if byte == ByteClass.carriageReturn {
            return HTTPWireError(.bareCarriageReturn, "CR inside a field name", offset: offset + index)
        }
        return HTTPWireError(.invalidFieldName, "byte \(byte) in a field name", offset: offset + index)
    }

    /// The error for a byte that a field value, reason phrase or quoted string may not contain.
    static func valueError(_ byte: UInt8, offset: Int) -> HTTPWireError {
        if byte == ByteClass.carriageReturn {
            return HTTPWireError(.bareCarriageReturn, "CR not followed by LF", offset: offset)
        }
        return HTTPWireError(.invalidFieldValue, "control byte \(byte) in a field value", offset: offset)
    }
}
