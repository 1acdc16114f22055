import HTTPWire

/// An interim head of `exchange`, as the gate needs it: its status, and the upload path a 104 announces.
struct InterimHead: Sendable {
    var exchange: Int
    var status: Int
    /// The `Location` of a 104 that announces the upload; nil for other heads.
    var announcedLocation: String?
}

/// Part of a request body still to forward, and where it lies.
struct BodyPiece: Sendable {
    var exchange: Int
    var chunked: Bool
    /// The offset of `bytes`' first byte in the request body.
    var bodyOffset: Int64
    /// The upload's absolute offset of `bytes`' first byte, when known.
    var uploadOffset: Int64?
    var bytes: ArraySlice<UInt8>

    /// The piece after its first `count` bytes.
    func dropping(_ count: Int) -> BodyPiece {
        BodyPiece(
            exchange: exchange, chunked: chunked, bodyOffset: bodyOffset + Int64(count),
            uploadOffset: uploadOffset.map { $0 + Int64(count) }, bytes: bytes.dropFirst(count))
    }
}

/// What the client sent while a fault waits for its announcement.
enum AwaitedInput: Sendable {
    /// Events already parsed from the client's bytes, after the body piece that waits.
    case events(ArraySlice<HTTP1Event>)
    case bytes(ArraySlice<UInt8>)
    case end
}
