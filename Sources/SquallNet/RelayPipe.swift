/// One direction of a relay: reads from `source` into a bounded ring buffer and writes from it to
/// `destination`, then passes the end of stream on with `shutdownWrite()`.
///
/// ```
/// source ──read──▶ [ ring buffer, capacity = bufferSize ] ──write──▶ destination
///                                                  after EOF and drain ──shutdownWrite──▶ destination
/// ```
/// Each operation that would block remembers the readiness it waits for (`readWait`, `writeWait`); the
/// relay's poll clears it. A full buffer stops reading (backpressure) until a write drains it.
final class RelayPipe {
    let direction: RelayDirection
    let source: any ByteStream
    let destination: any ByteStream
    private(set) var report = RelayDirectionReport()
    /// The readiness a blocked read waits for on `source`; nil when a read may be tried.
    var readWait: IOInterest?
    /// The readiness a blocked write or shutdown waits for on `destination`; nil when it may be tried.
    var writeWait: IOInterest?
    private(set) var sourceEnded = false
    /// The destination's write side is shut down: this direction is done.
    private(set) var isFinished = false

    private let storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var count = 0

    init(direction: RelayDirection, source: any ByteStream, destination: any ByteStream, capacity: Int) {
        self.direction = direction
        self.source = source
        self.destination = destination
        self.storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Whether a read is wanted: the source has not ended and the buffer has room.
    var wantsRead: Bool {
        !sourceEnded && count < storage.count
    }

    /// Whether a write or the final shutdown is wanted.
    var wantsWrite: Bool {
        !isFinished && (count > 0 || sourceEnded)
    }

    /// Tries the write, then reads until the buffer is full or the source would block, then writes again,
    /// each as far as it can go without blocking. Reading a batch before writing turns many small reads (a
    /// TLS read returns one record, at most 16 KiB) into one large write and one poll per batch.
    /// Returns whether anything moved; throws `RelayFailure` naming the side that failed.
    func pump(tap: (any RelayTap)?) throws(RelayFailure) -> Bool {
        var progressed = try flush()
        while wantsRead, readWait == nil || source.bufferedReadableCount > 0 {
            guard try readChunk(tap: tap) else { break }
            progressed = true
        }
        return try flush() || progressed
    }

    private func readChunk(tap: (any RelayTap)?) throws(RelayFailure) -> Bool {
        let free = freeRegion
        let outcome: IOOutcome
        do {
            outcome = try source.read(into: free)
        } catch {
            throw RelayFailure(side: direction.source, error: error)
        }
        switch outcome {
        case .done(let received) where received > 0:
            readWait = nil
            tap?.relay(direction, received: UnsafeRawBufferPointer(rebasing: free[..<received]))
            count += received
            report.bytesReceived += Int64(received)
            report.bufferHighWater = max(report.bufferHighWater, count)
            return true
        case .done:
            readWait = .read
            return false
        case .wouldBlock(let interest):
            readWait = interest
            return false
        case .endOfStream:
            readWait = nil
            sourceEnded = true
            return true
        }
    }

    /// Writes buffered bytes until the buffer is empty or the destination blocks, then the shutdown once the
    /// source has ended and everything is delivered.
    private func flush() throws(RelayFailure) -> Bool {
        var progressed = false
        do {
            while count > 0, writeWait == nil {
                switch try destination.write(filledRegion) {
                case .done(let written) where written > 0:
                    consume(written)
                    report.bytesDelivered += Int64(written)
                    progressed = true
                case .done:
                    writeWait = .write
                case .endOfStream:
                    throw RelayFailure(side: direction.destination, ending: .failed("write: the stream has ended"))
                case .wouldBlock(let interest):
                    writeWait = interest
                }
            }
            if sourceEnded, count == 0, !isFinished, writeWait == nil {
                switch try destination.shutdownWrite() {
                case .wouldBlock(let interest): writeWait = interest
                case .done, .endOfStream: isFinished = true
                }
                progressed = progressed || isFinished
            }
        } catch let failure as RelayFailure {
            throw failure
        } catch {
            throw RelayFailure(side: direction.destination, error: error)
        }
        return progressed
    }

    /// The contiguous free space after the buffered bytes (empty when full).
    private var freeRegion: UnsafeMutableRawBufferPointer {
        let end = (start + count) % storage.count
        let length = count == storage.count ? 0 : (end >= start ? storage.count - end : start - end)
        return UnsafeMutableRawBufferPointer(rebasing: storage[end..<(end + length)])
    }

    /// The contiguous buffered bytes from the oldest on.
    private var filledRegion: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[start..<(start + min(count, storage.count - start))])
    }

    private func consume(_ written: Int) {
        start = (start + written) % storage.count
        count -= written
        if count == 0 { start = 0 }
    }
}

/// A stream operation failed: which side, and how that side ended.
struct RelayFailure: Error {
    let side: RelaySide
    let ending: RelayEnding

    init(side: RelaySide, ending: RelayEnding) {
        self.side = side
        self.ending = ending
    }

    init(side: RelaySide, error: any Error) {
        self.init(side: side, ending: RelayEnding(error: error))
    }
}
