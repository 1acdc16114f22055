/// Line assembly for heads, chunk-size lines and trailer sections (RFC 9112 §2.1, §2.2, §7.1): lines are read in
/// place from the bytes fed; only a section that spans feeds is carried over, and no byte is scanned twice.
extension HTTP1Parser {
    /// Consumes bytes up to and including the next LF and handles the line; returns the index after what it used.
    mutating func consumeLine(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) -> Int {
        let end = ByteClass.firstIndex(of: ByteClass.lineFeed, in: buffer, from: start)
        let lineEnd = streamOffset + end
        if lineEnd >= lineDeadline { throw limitError() }
        guard end < buffer.count else { return end }
        let offset = lineStart
        lineStart = lineEnd + 1
        if offset < streamOffset || lineEnd == offset
            || (lineEnd == offset + 1 && buffer[end - 1] == ByteClass.carriageReturn)
        {
            // The line began in an earlier feed, or may end its section: bring the section's bytes together.
            carry(buffer, upTo: end + 1)
            let bytes = carried
            try bytes.withUnsafeBufferPointer { (bytes) throws(HTTPWireError) in
                let line = UnsafeBufferPointer(rebasing: bytes[(offset - sectionStart)..<(lineEnd - sectionStart)])
                try handleLine(line, at: offset, into: &events)
            }
        } else {
            let line = UnsafeBufferPointer(rebasing: buffer[(offset - streamOffset)..<end])
            try handleLine(line, at: offset, into: &events)
        }
        updateLineDeadline()
        return end + 1
    }

    /// Appends to `carried` the bytes of `buffer` after those it holds, up to index `end`.
    mutating func carry(_ buffer: UnsafeBufferPointer<UInt8>, upTo end: Int) {
        let start = sectionStart + carried.count - streamOffset
        guard start < end else { return }
        let bytes = UnsafeBufferPointer(rebasing: buffer[start..<end])
        if carried.isEmpty { carried = Array(bytes) } else { carried.append(contentsOf: bytes) }
    }

    /// Sets `lineDeadline`, the stream offset that the current line's LF must come before: the limits on line
    /// length and on head or trailer size (HTTPLimits).
    mutating func updateLineDeadline() {
        switch state {
        case .head:
            lineDeadline = min(lineStart + limits.maxLineLength, messageStart + limits.maxHeadSize)
        case .chunkSize:
            lineDeadline = lineStart + limits.maxChunkLineLength
        default:
            lineDeadline = min(lineStart + limits.maxLineLength, sectionStart + limits.maxTrailerSize)
        }
    }

    /// The error for a line that reached `lineDeadline`. The limit crossed first names it, so the error does not
    /// depend on how the bytes were split.
    private func limitError() -> HTTPWireError {
        switch state {
        case .head where lineDeadline < lineStart + limits.maxLineLength:
            return HTTPWireError(.headTooLarge, "head exceeds \(limits.maxHeadSize) bytes", offset: lineStart)
        case .head:
            let code: HTTPWireError.Code = section.hasStartLine ? .fieldLineTooLong : .startLineTooLong
            return HTTPWireError(code, "line exceeds \(limits.maxLineLength) bytes", offset: lineStart)
        case .chunkSize:
            return HTTPWireError(
                .chunkLineTooLong, "chunk-size line exceeds \(limits.maxChunkLineLength) bytes", offset: lineStart)
        case _ where lineDeadline < lineStart + limits.maxLineLength:
            return HTTPWireError(.trailersTooLarge, "trailers exceed \(limits.maxTrailerSize) bytes", offset: lineStart)
        default:
            return HTTPWireError(.fieldLineTooLong, "line exceeds \(limits.maxLineLength) bytes", offset: lineStart)
        }
    }

    /// Handles one complete line, `line` being its bytes before the LF, at stream `offset`.
    @inline(__always)
    private mutating func handleLine(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        var content = line
        if line.last == ByteClass.carriageReturn {
            content = UnsafeBufferPointer(rebasing: line.dropLast())
        } else if !limits.allowsBareLineFeed {
            throw HTTPWireError(.bareLineFeed, "line ended by LF without CR", offset: offset + line.count)
        }
        switch state {
        case .head:
            try headLine(content, at: offset, into: &events)
        case .chunkSize:
            let size = try ChunkLine.size(content, at: offset)
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            beginSection(at: lineStart)
        default:
            try trailerLine(content, at: offset, into: &events)
        }
    }

    @inline(__always)
    private mutating func headLine(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        if !section.hasStartLine {
            // RFC 9112 §2.2: a server ignores empty lines before a request line.
            if line.isEmpty && role == .server {
                beginSection(at: lineStart)
                return
            }
            try section.addStartLine(line, role: role, at: offset)
        } else if line.isEmpty {
            try completeHead(at: offset, into: &events)
        } else {
            try section.addField(
                line, position: offset - sectionStart, recordsFraming: true, limits: limits, at: offset)
        }
    }

    private mutating func trailerLine(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        if line.isEmpty {
            let trailers = HTTPFields(bytes: carried, entries: section.entries)
            endMessage(trailers: trailers, nextAt: lineStart, into: &events)
        } else {
            try section.addField(
                line, position: offset - sectionStart, recordsFraming: false, limits: limits, at: offset)
        }
    }
}
