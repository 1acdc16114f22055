/// An error of the HTTP/1.1 wire codec: a stable `code`, a human `detail`, and where in the stream it was found.
///
/// Compare errors on `code`; `detail` is for people and may change. A server answers a request that fails to parse
/// with `requestStatus`: `startLineTooLong` 414, `headTooLarge`, `tooManyFields` and `fieldLineTooLong` 431,
/// `unsupportedVersion` 505, `unsupportedTransferEncoding` 501, everything else 400.
public struct HTTPWireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; stable across releases.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // Limits (HTTPLimits).
        case headTooLarge
        case tooManyFields
        case startLineTooLong
        case fieldLineTooLong
        case chunkLineTooLong
        case trailersTooLarge

        // Line endings (RFC 9112 §2.2).
        case bareLineFeed
        case bareCarriageReturn

        // Start line (RFC 9112 §3, §4).
        case invalidMethod
        case invalidTarget
        case invalidVersion
        case unsupportedVersion
        case invalidStatus
        case invalidReason

        // Field lines (RFC 9112 §5, RFC 9110 §5).
        case invalidFieldName
        case invalidFieldValue
        case obsoleteLineFolding
        case whitespaceBeforeColon
        case missingHost
        case duplicateHost

        // Message body length (RFC 9112 §6).
        case invalidContentLength
        case conflictingContentLength
        case contentLengthWithTransferEncoding
        case unsupportedTransferEncoding
        case transferEncodingInHTTP10

        // Chunked transfer coding (RFC 9112 §7.1).
        case invalidChunkSize
        case chunkSizeOverflow
        case invalidChunkExtension
        case invalidChunkTerminator

        // Stream.
        case truncated
        case dataAfterFinish
    }

    /// What went wrong; compare on this.
    public let code: Code
    /// A human explanation, e.g. which field or which limit.
    public let detail: String
    /// Offset in the byte stream (from the parser's first byte) where the problem was found; 0 for errors that do
    /// not come from a stream (serializer, `BodyFraming` on a head).
    public let offset: Int

    public init(_ code: Code, _ detail: String, offset: Int = 0) {
        self.code = code
        self.detail = detail
        self.offset = offset
    }

    public var description: String {
        "\(code.rawValue) at byte \(offset): \(detail)"
    }

    /// The status and reason phrase a server answers a request that failed to parse with this error (RFC 9110
    /// §15: 414 URI Too Long, 431 Request Header Fields Too Large, 505, 501 Not Implemented for a transfer
    /// coding it does not implement, RFC 9112 §6.1; else 400).
    public var requestStatus: (status: Int, reason: String) {
        switch code {
        case .startLineTooLong: (414, "URI Too Long")
        case .headTooLarge, .tooManyFields, .fieldLineTooLong: (431, "Request Header Fields Too Large")
        case .unsupportedVersion: (505, "HTTP Version Not Supported")
        case .unsupportedTransferEncoding: (501, "Not Implemented")
        default: (400, "Bad Request")
        }
    }
}
