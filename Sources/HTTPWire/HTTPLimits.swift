/// Bounds the parser enforces on every message, so a peer cannot make it buffer without limit.
///
/// Bodies are streamed and never limited here. Exceeding a bound is an `HTTPWireError` naming it.
public struct HTTPLimits: Sendable, Hashable {
    /// Largest head (start line, field lines, their CRLFs and the empty line), in bytes. Default 64 KiB.
    /// Exceeding it is `headTooLarge` (431).
    public var maxHeadSize: Int
    /// Most field lines in a head, and most trailer fields. Default 100. Exceeding it is `tooManyFields` (431).
    public var maxFieldCount: Int
    /// Longest start line or field line, counting its CRLF. Default 8 KiB. Exceeding it is `startLineTooLong`
    /// (414 for a request line) or `fieldLineTooLong` (431).
    public var maxLineLength: Int
    /// Longest chunk-size line with its chunk extensions and CRLF (RFC 9112 §7.1.1). Default 4 KiB.
    /// Exceeding it is `chunkLineTooLong`.
    public var maxChunkLineLength: Int
    /// Largest trailer section, counting CRLFs and the final empty line (RFC 9112 §7.1.2). Default 16 KiB.
    /// Exceeding it is `trailersTooLarge`.
    public var maxTrailerSize: Int
    /// Accept a bare LF as a line terminator (RFC 9112 §2.2 allows it as an option). Default false: `bareLineFeed`.
    public var allowsBareLineFeed: Bool

    public init(
        maxHeadSize: Int = 64 * 1024,
        maxFieldCount: Int = 100,
        maxLineLength: Int = 8 * 1024,
        maxChunkLineLength: Int = 4 * 1024,
        maxTrailerSize: Int = 16 * 1024,
        allowsBareLineFeed: Bool = false
    ) {
        self.maxHeadSize = maxHeadSize
        self.maxFieldCount = maxFieldCount
        self.maxLineLength = maxLineLength
        self.maxChunkLineLength = maxChunkLineLength
        self.maxTrailerSize = maxTrailerSize
        self.allowsBareLineFeed = allowsBareLineFeed
    }
}
