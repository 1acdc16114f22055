/// A run of an upload's bytes sent in one request body: `length` bytes from absolute `offset`.
public struct ByteRange: Hashable, Sendable, Codable {
    public var offset: Int64
    public var length: Int64

    public init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }

    /// The offset just past the range.
    public var end: Int64 {
        offset + length
    }
}
