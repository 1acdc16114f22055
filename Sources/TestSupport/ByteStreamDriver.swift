import Glibc
import SquallNet

/// Drives any `ByteStream` to completion from tests, blocking or not: on `.wouldBlock` it polls the
/// descriptor for the interest asked for, and every wait is bounded by a timeout.
public enum ByteStreamDriver {
    /// Writes every byte.
    public static func writeAll(_ stream: ByteStream, _ bytes: [UInt8], timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var offset = 0
        while offset < bytes.count {
            let chunk = min(64 * 1024, bytes.count - offset)
            let outcome = try bytes[offset..<offset + chunk].withUnsafeBytes { try stream.write($0) }
            switch outcome {
            case .done(let count): offset += count
            case .wouldBlock(let interest): try wait(stream, interest, deadline)
            case .endOfStream: throw TLSFixtures.Failure("write reported end of stream")
            }
        }
    }

    /// Ends the write side (for TLS: close_notify, then FIN).
    public static func shutdownWrite(_ stream: ByteStream, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while case .wouldBlock(let interest) = try stream.shutdownWrite() {
            try wait(stream, interest, deadline)
        }
    }

    /// Reads until end of stream, failing beyond `limit` bytes.
    public static func readToEnd(
        _ stream: ByteStream, limit: Int = 16 << 20, timeout: Duration = .seconds(10)
    ) throws -> [UInt8] {
        try readUntil(stream, limit: limit, timeout: timeout) { _ in false }
    }

    /// Reads until `delimiter` has arrived (or end of stream), failing beyond `limit` bytes.
    public static func readUntil(
        _ stream: ByteStream, delimiter: [UInt8], limit: Int = 64 * 1024, timeout: Duration = .seconds(10)
    ) throws -> [UInt8] {
        try readUntil(stream, limit: limit, timeout: timeout) { received in
            received.count >= delimiter.count && received.suffix(delimiter.count).elementsEqual(delimiter)
        }
    }

    /// Sends `payload` and then a write shutdown while reading whatever comes back until end of stream,
    /// both directions at once (so an echo larger than the socket buffers cannot deadlock).
    /// Switches the descriptor to non-blocking.
    public static func exchange(
        _ stream: ByteStream, sending payload: [UInt8], limit: Int = 16 << 20, timeout: Duration = .seconds(10)
    ) throws -> [UInt8] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        _ = fcntl(stream.fileDescriptor, F_SETFL, fcntl(stream.fileDescriptor, F_GETFL) | O_NONBLOCK)
        var sent = 0
        var writeDone = false
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var interest: IOInterest = []
            var progressed = false
            if !writeDone {
                let outcome: IOOutcome
                if sent < payload.count {
                    let chunk = min(64 * 1024, payload.count - sent)
                    outcome = try payload[sent..<sent + chunk].withUnsafeBytes { try stream.write($0) }
                } else {
                    outcome = try stream.shutdownWrite()
                    writeDone = outcome == .done(0)
                }
                if case .done(let count) = outcome { sent += count }
                if case .wouldBlock(let wanted) = outcome { interest.formUnion(wanted) } else { progressed = true }
            }
            switch try buffer.withUnsafeMutableBytes({ try stream.read(into: $0) }) {
            case .done(let count):
                received.append(contentsOf: buffer[..<count])
                guard received.count <= limit else { throw TLSFixtures.Failure("more than \(limit) bytes came back") }
                progressed = true
            case .wouldBlock(let wanted): interest.formUnion(wanted)
            case .endOfStream:
                if writeDone { return received }
            }
            if !progressed { try wait(stream, interest, deadline) }
        }
    }

    private static func readUntil(
        _ stream: ByteStream, limit: Int, timeout: Duration, isComplete: ([UInt8]) -> Bool
    ) throws -> [UInt8] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !isComplete(received) {
            switch try buffer.withUnsafeMutableBytes({ try stream.read(into: $0) }) {
            case .done(let count):
                received.append(contentsOf: buffer[..<count])
                guard received.count <= limit else { throw TLSFixtures.Failure("more than \(limit) bytes arrived") }
            case .wouldBlock(let interest): try wait(stream, interest, deadline)
            case .endOfStream: return received
            }
        }
        return received
    }

    /// Polls the stream's descriptor for `interest` until `deadline`.
    public static func wait(_ stream: ByteStream, _ interest: IOInterest, _ deadline: ContinuousClock.Instant) throws {
        var events: Int16 = 0
        if interest.contains(.read) { events |= Int16(POLLIN) }
        if interest.contains(.write) { events |= Int16(POLLOUT) }
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TLSFixtures.Failure("timed out waiting for \(interest)") }
            var entry = pollfd(fd: stream.fileDescriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: remaining.milliseconds))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw TLSFixtures.Failure("poll failed: errno \(errno)") }
        }
    }
}
