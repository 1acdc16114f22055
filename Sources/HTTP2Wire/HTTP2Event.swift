import HTTPWire

/// An HTTP/2 error code (RFC 9113 §7), as `RST_STREAM` and `GOAWAY` carry it.
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    public static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    public static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    public static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The code's name in RFC 9113 §7 (`CANCEL`), or `0x…` for a code it does not define.
    public var description: String {
        rawValue < Self.names.count ? Self.names[Int(rawValue)] : "0x" + String(rawValue, radix: 16)
    }

    /// The code named `name` (`CANCEL`, `cancel`) or written as a number (`8`, `0x8`); nil for anything else.
    public init?(name: String) {
        let upper = String(name.uppercased().map { $0 == "-" ? "_" : $0 })
        if let index = Self.names.firstIndex(of: upper) {
            self.init(rawValue: UInt32(index))
        } else if upper.hasPrefix("0X"), let value = UInt32(upper.dropFirst(2), radix: 16) {
            self.init(rawValue: value)
        } else if let value = UInt32(upper) {
            self.init(rawValue: value)
        } else {
            return nil
        }
    }
}

/// A setting of a `SETTINGS` frame (RFC 9113 §6.5.2).
public struct HTTP2Setting: Sendable, Hashable {
    public enum Identifier: UInt16, Sendable, Hashable {
        case headerTableSize = 0x1
        case enablePush = 0x2
        case maxConcurrentStreams = 0x3
        case initialWindowSize = 0x4
        case maxFrameSize = 0x5
        case maxHeaderListSize = 0x6
    }

    public var identifier: Identifier
    public var value: UInt32

    public init(_ identifier: Identifier, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }
}

/// What an `HTTP2Session` read from its peer, in the order it arrived.
public enum HTTP2Event: Sendable, Hashable {
    /// A whole header block on `stream` (names in lowercase, pseudo-header fields first): a request's or response's head, a 1xx's, or trailers. `endStream` when
    /// its frame ended the stream (a request or response without content).
    case headers(stream: Int32, fields: [HTTPField], endStream: Bool)
    /// Content of `stream` (already counted against the flow-control windows: see `HTTP2Session.consume`).
    case data(stream: Int32, bytes: [UInt8])
    /// The peer ended `stream` with a `DATA` frame carrying `END_STREAM`.
    case endStream(stream: Int32)
    /// The peer reset `stream` (`RST_STREAM`).
    case reset(stream: Int32, code: HTTP2ErrorCode)
    /// `stream` closed, for any reason (both ends done, a reset either way, the session ending); `code` is the
    /// reset's or `NO_ERROR`.
    case closed(stream: Int32, code: HTTP2ErrorCode)
    /// The peer said it goes away (`GOAWAY`): streams above `lastStream` were not and will not be processed.
    case goaway(lastStream: Int32, code: HTTP2ErrorCode)
    /// The peer's `SETTINGS` (not an acknowledgement).
    case settings([HTTP2Setting])
    /// The peer acknowledged a `PING` this side sent.
    case pingAcknowledged
    /// The peer sent a `PING` with these 8 opaque bytes, left for the caller to acknowledge (`acknowledgePing`);
    /// only with `HTTP2Session.Options.holdPings` (otherwise the session acknowledges it at once).
    case ping(opaque: UInt64)
    /// The peer opened `stream`'s or (stream 0) the connection's window by `increment` (`WINDOW_UPDATE`).
    case windowUpdate(stream: Int32, increment: Int32)
}
