import HTTPWire

/// Where a request's body lands in an upload, read from its head alone (the proxy does not know the server's
/// paths): the absolute offset of the body's first byte and the upload's length when the head tells them.
///
/// - PATCH with `Upload-Offset`: starts there (an append).
/// - POST or PUT: a creation or a plain upload, starting at `Upload-Offset` or 0.
/// - The length is `Upload-Length`, or, when the request completes the upload (`Upload-Complete: ?1`,
///   `Upload-Incomplete: ?0`, or neither field), the start plus `Content-Length`.
/// - Other methods carry no upload.
public struct UploadContext: Sendable, Hashable {
    public var start: Int64?
    public var length: Int64?

    public init(start: Int64?, length: Int64?) {
        self.start = start
        self.length = length
    }

    public init(_ head: RequestHead) {
        let fields = head.fields
        let offset = Self.integer(fields["Upload-Offset"])
        switch head.method {
        case .patch: start = offset
        case .post, .put: start = offset ?? 0
        default: start = nil
        }
        guard let start else {
            length = nil
            return
        }
        if let declared = Self.integer(fields["Upload-Length"]) {
            length = declared
        } else if Self.completes(fields), let contentLength = Self.integer(fields["Content-Length"]) {
            length = start + contentLength
        } else {
            length = nil
        }
    }

    /// Whether the request carries the upload's last byte: the completion field says so, or there is none.
    private static func completes(_ fields: HTTPFields) -> Bool {
        if let complete = fields["Upload-Complete"] { return complete.trimmed == "?1" }
        if let incomplete = fields["Upload-Incomplete"] { return incomplete.trimmed == "?0" }
        return true
    }

    /// A non-negative decimal integer (an sf-integer or a Content-Length), or nil.
    private static func integer(_ value: String?) -> Int64? {
        guard let text = value?.trimmed, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(text)
    }
}

extension String {
    fileprivate var trimmed: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
