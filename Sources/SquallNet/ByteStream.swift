/// Which readiness a stream waits for before a call can make progress.
public struct IOInterest: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = IOInterest(rawValue: 1)
    public static let write = IOInterest(rawValue: 2)
}

/// The outcome of one non-blocking read, write or shutdown on a `ByteStream`.
public enum IOOutcome: Sendable, Equatable {
    /// Bytes moved (always > 0 for reads and writes; 0 for a completed shutdown).
    case done(Int)
    /// Nothing moved; call again once the descriptor has the given readiness.
    case wouldBlock(IOInterest)
    /// A read found the peer's end of stream (a TCP FIN, or a TLS close_notify).
    case endOfStream
}

/// A bidirectional byte stream over one socket: plain TCP (`PlainStream`) or TLS (`TLSKit.TLSStream`); or between
/// two threads (`MemoryStream`).
///
/// Calls never block when the socket is non-blocking; they return `.wouldBlock` with what to wait for.
/// A TLS read can need the socket to be writable, so the interest is part of the answer. One thread uses
/// a stream at a time. Errors are thrown (`NetError` for sockets, `TLSError` for TLS).
public protocol ByteStream: AnyObject {
    /// The socket descriptor to poll.
    var fileDescriptor: Int32 { get }

    /// Bytes that can be read now without the socket becoming readable (TLS records already decrypted).
    var bufferedReadableCount: Int { get }

    /// Reads up to `buffer.count` bytes.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOOutcome

    /// Writes up to `bytes.count` bytes; a partial write returns how many went.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> IOOutcome

    /// Ends the write side (TCP FIN; for TLS a close_notify first) and keeps reading possible.
    func shutdownWrite() throws -> IOOutcome

    /// Closes gracefully (FIN).
    func close()

    /// Closes with a TCP RST.
    func abort()

    /// What to poll `fileDescriptor` for when its owner is about to wait for `interest`: the same, for a socket's
    /// streams. A `MemoryStream` readies its eventfd for exactly `interest` and asks for readability.
    func pollInterest(for interest: IOInterest) -> IOInterest
}

extension ByteStream {
    public func pollInterest(for interest: IOInterest) -> IOInterest { interest }
}
