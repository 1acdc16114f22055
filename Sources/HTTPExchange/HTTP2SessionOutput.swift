import SquallNet

/// The bytes an HTTP/2 session gave a connection's loop to write, and how far they went: the write step of
/// `HTTP2ServerConnection` and `HTTP2ClientConnection`, and of the proxy's fronts and backs (`flush`).
public struct HTTP2SessionOutput {
    var bytes: [UInt8] = []
    var written = 0

    public init() {}

    /// Output taken already, none of it written.
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether everything taken went out.
    public var flushed: Bool { written == bytes.count }

    /// Writes the session's output (`take`) to `stream` until none is left or the stream takes no more for now;
    /// `sent` sees each part as it went (a capture).
    public mutating func flush(
        to stream: any ByteStream, take: () throws -> [UInt8], sent: (ArraySlice<UInt8>) -> Void
    ) throws {
        while true {
            if flushed {
                bytes = try take()
                written = 0
                if bytes.isEmpty { return }
            }
            let outcome = try bytes.withUnsafeBytes { raw in
                try stream.write(UnsafeRawBufferPointer(rebasing: raw[written...]))
            }
            guard case .done(let count) = outcome else { return }
            sent(bytes[written..<(written + count)])
            written += count
        }
    }

    /// What the loop does after a write step.
    enum Step {
        /// Loop at once: all of it went (the session may hold more than one take gives), or more can go now.
        case again
        /// Go on to read, then wait for `interest` too (empty: nothing is left to write).
        case proceed(IOInterest)
        /// The peer is gone.
        case ended
    }

    /// Takes the session's next output once the last went whole (`take`, under the caller's lock), and writes as much
    /// as the stream takes.
    mutating func write(to stream: any ByteStream, take: () throws -> [UInt8]) throws -> Step {
        if flushed {
            bytes = try take()
            written = 0
        }
        guard !flushed else { return .proceed([]) }
        switch try bytes.withUnsafeBytes({ try stream.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }) {
        case .done(let count):
            written += count
            return .again
        case .wouldBlock(let wanted):
            return wanted.isEmpty ? .again : .proceed(wanted)
        case .endOfStream:
            return .ended
        }
    }
}
