import Synchronization

/// How much of its connections a flight-recording `DecryptedCapture` keeps in memory.
public struct FlightRecorderLimits: Sendable, Hashable {
    /// The most packet bytes kept per connection (both legs of a proxied connection are two connections). Its
    /// opening handshake is always kept; past the limit the oldest packets after it go first. Default 8 MiB.
    public var perConnection: Int
    /// The most packet bytes kept for all connections together; past it, a connection's new packets push out its
    /// own oldest ones, and a connection with nothing left to push out loses the new ones. Default 256 MiB.
    public var total: Int

    public init(perConnection: Int = 8 << 20, total: Int = 256 << 20) {
        self.perConnection = perConnection
        self.total = total
    }
}

/// The packets of a flight-recording capture, kept in memory per connection within `FlightRecorderLimits` until
/// the capture is closed (written to the file when kept, dropped when not). Nothing touches the file system on
/// the proxy's data path: recording a batch is a copy into a reused buffer and an append under a lock.
final class FlightRecorder: Sendable {
    /// One connection's batches in time order; the first (the opening handshake) is never pushed out.
    private struct Ring {
        var batches: [PacketBatch] = []
        /// The first batch not yet pushed out, after the pinned one.
        var head = 1
        var bytes = 0

        mutating func popOldest() -> PacketBatch? {
            guard head < batches.count else { return nil }
            let batch = batches[head]
            batches[head] = PacketBatch(time: batch.time, reserving: 0)
            head += 1
            bytes -= batch.bytes.count
            if head > 64, head * 2 > batches.count {
                batches.removeSubrange(1..<head)
                head = 1
            }
            return batch
        }
    }

    private struct State {
        var rings: [Int: Ring] = [:]
        var total = 0
        var droppedBytes: Int64 = 0
        var spare: [[UInt8]] = []
    }

    let limits: FlightRecorderLimits
    private let state = Mutex(State())
    private static let spareCount = 16

    init(limits: FlightRecorderLimits) {
        self.limits = limits
    }

    /// A buffer for the next batch, from a pushed-out one when there is one.
    func buffer() -> [UInt8] {
        state.withLock { $0.spare.popLast() ?? [] }
    }

    /// Keeps `batch` as connection `connection`'s newest, pushing out its oldest ones past the limits.
    func record(_ batch: PacketBatch, connection: Int) {
        let size = batch.bytes.count
        state.withLock { state in
            var ring = state.rings.removeValue(forKey: connection) ?? Ring()
            defer { state.rings[connection] = ring }
            guard !ring.batches.isEmpty else {
                ring.batches.append(batch)
                ring.bytes = size
                state.total += size
                return
            }
            while ring.bytes + size > limits.perConnection || state.total + size > limits.total {
                guard let oldest = ring.popOldest() else {
                    state.droppedBytes += Int64(size)
                    return
                }
                state.total -= oldest.bytes.count
                state.droppedBytes += Int64(oldest.bytes.count)
                if state.spare.count < Self.spareCount { state.spare.append(oldest.bytes) }
            }
            ring.batches.append(batch)
            ring.bytes += size
            state.total += size
        }
    }

    /// Every kept batch, all connections merged in time order (a connection's own order kept for equal times);
    /// the recorder is empty afterwards.
    func takeAll() -> [PacketBatch] {
        let rings = state.withLock { state in
            defer {
                state.rings = [:]
                state.total = 0
            }
            return state.rings
        }
        let kept = rings.sorted { $0.key < $1.key }.flatMap { _, ring in
            [ring.batches[0]] + ring.batches[ring.head...]
        }
        return kept.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// Drops every kept batch.
    func discard() {
        state.withLock { state in
            state.rings = [:]
            state.total = 0
        }
    }

    /// The packet bytes pushed out or never kept because of the limits.
    var droppedBytes: Int64 {
        state.withLock { $0.droppedBytes }
    }
}
