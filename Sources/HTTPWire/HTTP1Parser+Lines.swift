/// Line assembly for heads, chunk-size lines and trailer sections (RFC 9112 §2.1, §2.2, §7.1): lines are read in
/// place from the bytes fed; only a section that spans feeds is carried over, and no byte is scanned twice.
extension HTTP1Parser {
    /// Consumes bytes up to and including the next LF and handles the line; returns the index after what it used.
    mutating func consumeLine(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) -> Int {
        let end = ByteClass.firstIndex(of: ByteClass.lineFeed, in: buffer, from: start)
        let lineEnd = streamOffset + end
        if lineEnd >= min(lineStart + lineLimit, sectionLimit) { throw limitError() }
        guard end < buffer.count else { return end }
        let offset = lineStart
        lineStart = lineEnd + 1
        if sectionStart >= streamOffset {
            let section = UnsafeBufferPointer(rebasing: buffer[(sectionStart - streamOffset)...end])
            try handleLine(in: section, at: offset, into: &events)
        } else {
            // The section began in an earlier feed: bring its bytes together.
            carry(buffer, upTo: end + 1)
            let bytes = carried
            try bytes.withUnsafeBufferPointer { (section) throws(HTTPWireError) in
                try handleLine(in: section, at: offset, into: &events)
            }
        }
        return end + 1
    }

    /// Appends to `carried` the bytes of `buffer` after those it holds, up to index `end`.
    mutating func carry(_ buffer: UnsafeBufferPointer<UInt8>, upTo end: Int) {
        let start = sectionStart + carried.count - streamOffset
        guard start < end else { return }
        carried.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<end]))
    }

    /// Sets the limits of the section that begins, by state: `lineLimit`, the longest line, and `sectionLimit`,
    /// the stream offset that every line's LF must come before (HTTPLimits). A field section never exceeds 4 GiB,
    /// whatever the limits say, and huge limits (`Int.max`) do not overflow.
    mutating func setSectionLimits() {
        let largest = Int(UInt32.max)
        switch state {
        case .head:
            lineLimit = limits.maxLineLength
            sectionLimit = messageStart + min(limits.maxHeadSize, largest)
        case .chunkSize:
            lineLimit = limits.maxChunkLineLength
            sectionLimit = Int.max
        default:
            lineLimit = limits.maxLineLength
            sectionLimit = sectionStart + min(limits.maxTrailerSize, largest)
        }
        lineLimit = min(lineLimit, largest)
    }

    /// The error for a line that broke `lineLimit` or `sectionLimit`. The limit crossed first names it, so the
    /// error does not depend on how the bytes were split.
    private func limitError() -> HTTPWireError {
        switch state {
        case .head where sectionLimit < lineStart + lineLimit:
            return HTTPWireError(.headTooLarge, "head exceeds \(limits.maxHeadSize) bytes", offset: lineStart)
        case .head:
            let code: HTTPWireError.Code = section.hasStartLine ? .fieldLineTooLong : .startLineTooLong
            return HTTPWireError(code, "line exceeds \(limits.maxLineLength) bytes", offset: lineStart)
        case .chunkSize:
            return HTTPWireError(
                .chunkLineTooLong, "chunk-size line exceeds \(limits.maxChunkLineLength) bytes", offset: lineStart)
        case _ where sectionLimit < lineStart + lineLimit:
            return HTTPWireError(.trailersTooLarge, "trailers exceed \(limits.maxTrailerSize) bytes", offset: lineStart)
        default:
            return HTTPWireError(.fieldLineTooLong, "line exceeds \(limits.maxLineLength) bytes", offset: lineStart)
        }
    }

    /// Handles the last line of `section`, the bytes of the current section up to that line's LF; the line
    /// starts at stream `offset`.
    @inline(__always)
    private mutating func handleLine(
        in section: UnsafeBufferPointer<UInt8>, at offset: Int, into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        let position = offset - sectionStart
        var end = section.count - 1
        if end > position && section[end - 1] == ByteClass.carriageReturn {
            end -= 1
        } else if !limits.allowsBareLineFeed {
            throw HTTPWireError(.bareLineFeed, "line ended by LF without CR", offset: sectionStart + end)
        }
        let line = UnsafeBufferPointer(rebasing: section[position..<end])
        switch state {
        case .head:
            try headLine(line, at: offset, in: section, into: &events)
        case .chunkSize:
            let size = try ChunkLine.size(line, at: offset)
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            beginSection(at: lineStart)
        default:
            try trailerLine(line, at: offset, in: section, into: &events)
        }
    }

    @inline(__always)
    private mutating func headLine(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int, in section: UnsafeBufferPointer<UInt8>,
        into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        if !self.section.hasStartLine {
            // RFC 9112 §2.2: a server ignores empty lines before a request line.
            if line.isEmpty && role == .server {
                beginSection(at: lineStart)
                return
            }
            try self.section.addStartLine(line, role: role, at: offset)
        } else if line.isEmpty {
            try completeHead(HTTPFields(section: section, entries: self.section.entries), at: offset, into: &events)
        } else {
            try self.section.addField(
                line, position: offset - sectionStart, recordsFraming: true, maxCount: limits.maxFieldCount, at: offset)
        }
    }

    private mutating func trailerLine(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int, in section: UnsafeBufferPointer<UInt8>,
        into events: inout [HTTP1Event]
    ) throws(HTTPWireError) {
        if line.isEmpty {
            let trailers = HTTPFields(section: section, entries: self.section.entries)
            endMessage(trailers: trailers, nextAt: lineStart, into: &events)
        } else {
            try self.section.addField(
                line, position: offset - sectionStart, recordsFraming: false, maxCount: limits.maxFieldCount, at: offset
            )
        }
    }
}
