/// Writes HTTP/1.1 heads and chunked framing (RFC 9112), refusing, with a typed error, anything the parser would
/// reject: a head is validated whole before a byte of it is written.
///
/// ```swift
/// var bytes = try HTTP1Serializer.serialize(RequestHead(method: .patch, target: "/upload/abc", fields: fields))
/// bytes += HTTP1Serializer.chunk(part) + (try HTTP1Serializer.lastChunk())
/// ```
public enum HTTP1Serializer {
    /// Bytes after chunk data, and after each line.
    public static let crlf: [UInt8] = [ByteClass.carriageReturn, ByteClass.lineFeed]

    /// The request line, fields and empty line of `head`.
    public static func serialize(_ head: RequestHead) throws(HTTPWireError) -> [UInt8] {
        var buffer: [UInt8] = []
        try write(head, into: &buffer)
        return buffer
    }

    /// The status line, fields and empty line of `head`.
    public static func serialize(_ head: ResponseHead) throws(HTTPWireError) -> [UInt8] {
        var buffer: [UInt8] = []
        try write(head, into: &buffer)
        return buffer
    }

    /// Appends `head` to `buffer`; on error nothing is appended.
    public static func write(_ head: RequestHead, into buffer: inout [UInt8]) throws(HTTPWireError) {
        guard !head.method.rawValue.isEmpty, head.method.rawValue.utf8.allSatisfy(ByteClass.isTokenChar) else {
            throw HTTPWireError(.invalidMethod, "method '\(head.method)' is not a token")
        }
        try Array(head.target.utf8).withUnsafeBufferPointer { (target) throws(HTTPWireError) in
            try StartLine.checkTarget(target, method: head.method, at: 0)
        }
        try checkVersion(head.version)
        try checkFields(head.fields)
        let framing = try FramingFields(head.fields)
        try framing.checkHost(version: head.version, at: 0)
        _ = try framing.requestFraming(version: head.version, at: 0)
        buffer.append(contentsOf: head.method.rawValue.utf8)
        buffer.append(ByteClass.space)
        buffer.append(contentsOf: head.target.utf8)
        buffer.append(ByteClass.space)
        buffer.append(contentsOf: head.version.description.utf8)
        buffer.append(contentsOf: crlf)
        append(head.fields, to: &buffer)
    }

    /// Appends `head` to `buffer`; on error nothing is appended.
    public static func write(_ head: ResponseHead, into buffer: inout [UInt8]) throws(HTTPWireError) {
        try checkVersion(head.version)
        guard (100...999).contains(head.status) else {
            throw HTTPWireError(.invalidStatus, "status \(head.status) is not in 100...999")
        }
        for byte in head.reason.utf8 where !ByteClass.isVisible(byte) && !ByteClass.isWhitespace(byte) {
            throw HTTPWireError(.invalidReason, "byte \(byte) in the reason phrase")
        }
        try checkFields(head.fields)
        let framing = try FramingFields(head.fields)
        _ = try framing.responseFraming(status: head.status, requestMethod: .get, version: head.version, at: 0)
        buffer.append(contentsOf: head.version.description.utf8)
        buffer.append(ByteClass.space)
        buffer.append(contentsOf: String(head.status).utf8)
        buffer.append(ByteClass.space)
        buffer.append(contentsOf: head.reason.utf8)
        buffer.append(contentsOf: crlf)
        append(head.fields, to: &buffer)
    }

    /// One chunk carrying `data` (RFC 9112 §7.1): size line, data, CRLF. Empty data gives no bytes, since a
    /// zero-size chunk would end the content.
    public static func chunk(_ data: some Collection<UInt8>) -> [UInt8] {
        guard !data.isEmpty else { return [] }
        var buffer = chunkHeader(size: data.count)
        buffer.append(contentsOf: data)
        buffer.append(contentsOf: crlf)
        return buffer
    }

    /// The size line of a chunk of `size` bytes (> 0), for sending large data without copying it: write this,
    /// the data, then `crlf`.
    public static func chunkHeader(size: Int) -> [UInt8] {
        precondition(size > 0, "a chunk of size 0 is the last chunk")
        return Array(String(size, radix: 16).utf8) + crlf
    }

    /// The last chunk, the trailer fields and the final empty line (RFC 9112 §7.1.2).
    public static func lastChunk(trailers: HTTPFields = HTTPFields()) throws(HTTPWireError) -> [UInt8] {
        try checkFields(trailers)
        var buffer: [UInt8] = [0x30] + crlf
        append(trailers, to: &buffer)
        return buffer
    }

    private static func checkVersion(_ version: HTTPVersion) throws(HTTPWireError) {
        guard (0...9).contains(version.major), (0...9).contains(version.minor) else {
            throw HTTPWireError(.invalidVersion, "\(version) is not HTTP/D.D")
        }
        try StartLine.checkMajor(version, at: 0)
    }

    /// Names are tokens; values are visible bytes, spaces and tabs, without leading or trailing whitespace.
    private static func checkFields(_ fields: HTTPFields) throws(HTTPWireError) {
        try fields.forEachField { (name, value) throws(HTTPWireError) in try checkField(name: name, value: value) }
    }

    /// Whether a field can be sent as it is (RFC 9110 §5.1, §5.5): its name a token, its value visible bytes,
    /// spaces and tabs with no whitespace at either end (no CR, LF or NUL that would split or end the head).
    public static func checkField(name: String, value: String) throws(HTTPWireError) {
        try checkField(name: name.utf8, value: value.utf8)
    }

    private static func checkField(
        name: some Collection<UInt8>, value: some BidirectionalCollection<UInt8>
    ) throws(HTTPWireError) {
        guard !name.isEmpty, name.allSatisfy(ByteClass.isTokenChar) else {
            throw HTTPWireError(
                .invalidFieldName, "field name '\(String(decoding: name, as: UTF8.self))' is not a token")
        }
        if let first = value.first, let last = value.last,
            ByteClass.isWhitespace(first) || ByteClass.isWhitespace(last)
        {
            throw HTTPWireError(.invalidFieldValue, "value with leading or trailing whitespace")
        }
        for byte in value where !ByteClass.isVisible(byte) && !ByteClass.isWhitespace(byte) {
            throw HTTPWireError(.invalidFieldValue, "byte \(byte) in a field value")
        }
    }

    private static func append(_ fields: HTTPFields, to buffer: inout [UInt8]) {
        fields.write(to: &buffer)
        buffer.append(contentsOf: crlf)
    }
}
