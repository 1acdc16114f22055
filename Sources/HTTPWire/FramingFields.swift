/// What a head's fields say about its content length and connection, collected field by field as the parser
/// reads them (RFC 9112 §6, §9.3), then resolved into a `BodyFraming`.
struct FramingFields {
    /// The Content-Length value; every Content-Length field and list element must agree (RFC 9110 §8.6).
    var contentLength: Int?
    var hasTransferEncoding = false
    var transferCodingCount = 0
    /// Whether chunked is the final transfer coding; no coding may follow it.
    var isChunked = false
    var connection = ConnectionOptions()
    var hostCount = 0

    init() {}

    init(_ fields: HTTPFields) throws(HTTPWireError) {
        try fields.forEachField { (name, value) throws(HTTPWireError) in
            try record(name: name, value: value, at: 0)
        }
    }

    /// Records one field if its name bears on framing, connection or Host; throws on an invalid value.
    mutating func record(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, at offset: Int
    ) throws(HTTPWireError) {
        switch name.count {
        case 4 where ByteClass.equalsIgnoringCase(name, "host"):
            hostCount += 1
        case 10 where ByteClass.equalsIgnoringCase(name, "connection"):
            connection.add(value)
        case 14 where ByteClass.equalsIgnoringCase(name, "content-length"):
            try addContentLength(value, at: offset)
        case 17 where ByteClass.equalsIgnoringCase(name, "transfer-encoding"):
            try addTransferCodings(value, at: offset)
        default:
            break
        }
    }

    /// RFC 9110 §8.6: `1*DIGIT`; a list of identical values (`5, 5`) counts as one.
    private mutating func addContentLength(_ value: UnsafeBufferPointer<UInt8>, at offset: Int) throws(HTTPWireError) {
        try ByteClass.forEachElement(value) { (range) throws(HTTPWireError) in
            let length = try Self.decimal(UnsafeBufferPointer(rebasing: value[range]), at: offset)
            if let contentLength, contentLength != length {
                throw HTTPWireError(
                    .conflictingContentLength, "Content-Length \(contentLength) and \(length)", offset: offset)
            }
            contentLength = length
        }
    }

    private static func decimal(_ digits: UnsafeBufferPointer<UInt8>, at offset: Int) throws(HTTPWireError) -> Int {
        guard !digits.isEmpty else {
            throw HTTPWireError(.invalidContentLength, "empty Content-Length", offset: offset)
        }
        var result = 0
        for byte in digits {
            guard ByteClass.isDigit(byte) else {
                throw HTTPWireError(.invalidContentLength, "Content-Length is not 1*DIGIT", offset: offset)
            }
            let (shifted, overflow) = result.multipliedReportingOverflow(by: 10)
            let (sum, carry) = shifted.addingReportingOverflow(Int(byte &- 0x30))
            guard !overflow && !carry else {
                throw HTTPWireError(.invalidContentLength, "Content-Length exceeds \(Int.max)", offset: offset)
            }
            result = sum
        }
        return result
    }

    /// RFC 9112 §6.1, §7: known codings only, chunked at most once and last.
    private mutating func addTransferCodings(_ value: UnsafeBufferPointer<UInt8>, at offset: Int) throws(HTTPWireError)
    {
        hasTransferEncoding = true
        try ByteClass.forEachElement(value) { (range) throws(HTTPWireError) in
            guard !range.isEmpty else { return }
            let coding = UnsafeBufferPointer(rebasing: value[range])
            if isChunked {
                throw HTTPWireError(.unsupportedTransferEncoding, "a coding follows chunked", offset: offset)
            }
            if ByteClass.equalsIgnoringCase(coding, "chunked") {
                isChunked = true
            } else if !Self.isKnownCoding(coding) {
                let name = String(decoding: coding, as: UTF8.self)
                throw HTTPWireError(.unsupportedTransferEncoding, "unknown transfer coding '\(name)'", offset: offset)
            }
            transferCodingCount += 1
        }
    }

    /// Codings of the HTTP Transfer Coding Registry that a relay can pass through (RFC 9112 §7.2).
    private static func isKnownCoding(_ coding: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteClass.equalsIgnoringCase(coding, "gzip") || ByteClass.equalsIgnoringCase(coding, "deflate")
            || ByteClass.equalsIgnoringCase(coding, "compress") || ByteClass.equalsIgnoringCase(coding, "x-gzip")
            || ByteClass.equalsIgnoringCase(coding, "x-compress")
    }

    /// Request framing (RFC 9112 §6.3 rules 3 to 6). A request's transfer coding must be exactly `chunked`: a coding
    /// before it (`gzip, chunked`) is one no server here decodes, so it is refused (501) rather than its coded
    /// bytes taken as the content (RFC 9112 §6.1: a server SHOULD answer 501 to a coding it does not understand).
    func requestFraming(version: HTTPVersion, at offset: Int) throws(HTTPWireError) -> BodyFraming {
        if hasTransferEncoding {
            try checkTransferEncoding(version: version, at: offset)
            guard isChunked else {
                throw HTTPWireError(
                    .unsupportedTransferEncoding, "a request's final transfer coding must be chunked", offset: offset)
            }
            guard transferCodingCount == 1 else {
                throw HTTPWireError(
                    .unsupportedTransferEncoding,
                    "a request's transfer coding must be exactly chunked; compress the content instead "
                        + "(Content-Encoding)", offset: offset)
            }
            return .chunked
        }
        if let contentLength { return .contentLength(contentLength) }
        return .none
    }

    /// Response framing (RFC 9112 §6.3 rules 1 to 7).
    func responseFraming(
        status: Int, requestMethod: HTTPMethod, version: HTTPVersion, at offset: Int
    ) throws(HTTPWireError) -> BodyFraming {
        if status == 101 || (requestMethod == .connect && (200...299).contains(status)) { return .tunnel }
        if requestMethod == .head || status < 200 || status == 204 || status == 304 { return .none }
        if hasTransferEncoding {
            try checkTransferEncoding(version: version, at: offset)
            return isChunked ? .chunked : .untilClose
        }
        if let contentLength { return .contentLength(contentLength) }
        return .untilClose
    }

    private func checkTransferEncoding(version: HTTPVersion, at offset: Int) throws(HTTPWireError) {
        if version < .http11 {
            throw HTTPWireError(.transferEncodingInHTTP10, "Transfer-Encoding in \(version)", offset: offset)
        }
        if contentLength != nil {
            throw HTTPWireError(
                .contentLengthWithTransferEncoding, "both Content-Length and Transfer-Encoding", offset: offset)
        }
        if transferCodingCount == 0 {
            throw HTTPWireError(.unsupportedTransferEncoding, "empty Transfer-Encoding", offset: offset)
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host field; HTTP/1.0 at most one.
    func checkHost(version: HTTPVersion, at offset: Int) throws(HTTPWireError) {
        if hostCount > 1 {
            throw HTTPWireError(.duplicateHost, "\(hostCount) Host fields", offset: offset)
        }
        if hostCount == 0 && version >= .http11 {
            throw HTTPWireError(.missingHost, "\(version) request without Host", offset: offset)
        }
    }
}
