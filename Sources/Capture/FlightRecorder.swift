import PacketSynthesis
import Synchronization

/// How much of its connections a flight-recording `DecryptedCapture` keeps in memory.
public struct FlightRecorderLimits: Sendable, Hashable {
    /// The most bytes kept per connection (both legs of a proxied connection are two connections). Its opening
    /// handshake, FINs and RST are always kept; past the limit its oldest data goes first. Default 8 MiB.
    public var perConnection: Int
    /// The most bytes kept for all connections together; past it, a connection's new data pushes out its own
    /// oldest, and a connection with nothing left to push out loses the new data. Default 256 MiB.
    public var total: Int

    public init(perConnection: Int = 8 << 20, total: Int = 256 << 20) {
        self.perConnection = perConnection
        self.total = total
    }
}

/// What a connection of a flight-recording capture did, kept as it happened: the bytes each side sent (the
/// proxy's own slices, not copied), its opening, FINs and RST, each with its time. Packets are built only when the
/// capture is written (`takeAll`), so the data path pays an append under a lock, not the packets'
/// headers and checksums, and nothing touches the file system while the traffic flows.
final class FlightRecorder: Sendable {
    struct Event: Sendable {
        enum Kind: Sendable {
            case open
            case data(TCPFlowSynthesizer.Side)
            case finish(TCPFlowSynthesizer.Side)
            case reset(TCPFlowSynthesizer.Side)
        }

        var time: PacketTimestamp
        var kind: Kind
        var bytes: ArraySlice<UInt8> = []

        /// What the event counts against the limits: its bytes and a little for itself.
        var size: Int { bytes.count + 64 }
    }

    /// One connection: the synthesizer as it was before it opened (the packets are built from it again), the events
    /// still kept in order, and what was pushed out before them.
    private struct Ring {
        var flow: TCPFlowSynthesizer
        var events: [Event] = []
        var head = 0
        var size = 0
        /// The data bytes pushed out, per side.
        var skippedClient = 0
        var skippedServer = 0
        /// The opening, FINs and RST pushed out with the data before them (never dropped: a few per connection).
        var controls: [Event] = []

        /// Takes the oldest event out of the kept ones; nil when none is left.
        mutating func popOldest() -> Event? {
            guard head < events.count else { return nil }
            let event = events[head]
            events[head] = Event(time: event.time, kind: .open)
            head += 1
            size -= event.size
            if head > 64, head * 2 > events.count {
                events.removeSubrange(0..<head)
                head = 0
            }
            return event
        }

        /// Counts `event` as pushed out: its data becomes a gap in the sequence numbers, an opening, FIN or RST is
        /// kept aside. Returns the data bytes dropped.
        mutating func pushOut(_ event: Event) -> Int {
            switch event.kind {
            case .data(.client): skippedClient += event.bytes.count
            case .data(.server): skippedServer += event.bytes.count
            default:
                controls.append(event)
                return 0
            }
            return event.bytes.count
        }

        /// The connection's packets, one batch per event, from a fresh copy of its synthesizer.
        func packets() -> [PacketBatch] {
            var flow = flow
            var batches: [PacketBatch] = []
            func replay(_ event: Event) {
                var batch = PacketBatch(time: event.time, reserving: event.bytes.count + 256)
                event.bytes.withUnsafeBytes { bytes in
                    switch event.kind {
                    case .open: flow.open { batch.append($0) }
                    case .data(let side): flow.data(bytes, from: side) { batch.append($0) }
                    case .finish(let side): flow.finish(from: side) { batch.append($0) }
                    case .reset(let side): flow.reset(from: side) { batch.append($0) }
                    }
                }
                if !batch.lengths.isEmpty { batches.append(batch) }
            }
            // The opening first (it is the first event), then the pushed-out data as a gap, then the rest.
            for event in controls where event.kind.isOpen { replay(event) }
            flow.skip(skippedClient, from: .client)
            flow.skip(skippedServer, from: .server)
            for event in controls where !event.kind.isOpen { replay(event) }
            for event in events[head...] { replay(event) }
            return batches
        }
    }

    private struct State {
        var rings: [Int: Ring] = [:]
        var total = 0
        var droppedBytes: Int64 = 0
    }

    let limits: FlightRecorderLimits
    private let state = Mutex(State())

    init(limits: FlightRecorderLimits) {
        self.limits = limits
    }

    /// Starts connection `connection`, whose packets `flow` (not yet opened) builds.
    func begin(connection: Int, flow: TCPFlowSynthesizer) {
        state.withLock { $0.rings[connection] = Ring(flow: flow) }
    }

    /// Keeps an event of connection `connection` (`bytes`, for data, as they are: the slice keeps its buffer),
    /// pushing out the connection's oldest data past the limits.
    func record(connection: Int, _ kind: Event.Kind, bytes: ArraySlice<UInt8> = []) {
        let event = Event(time: PacketTimestamp.now(), kind: kind, bytes: bytes)
        state.withLock { state in
            guard var ring = state.rings.removeValue(forKey: connection) else { return }
            defer { state.rings[connection] = ring }
            let size = event.size
            if case .data = kind {
                while ring.size + size > limits.perConnection || state.total + size > limits.total {
                    guard let oldest = ring.popOldest() else {
                        // Nothing of its own left to push out: the new data is not kept either (a gap, like the rest).
                        state.droppedBytes += Int64(ring.pushOut(event))
                        return
                    }
                    state.total -= oldest.size
                    state.droppedBytes += Int64(ring.pushOut(oldest))
                }
            }
            ring.events.append(event)
            ring.size += size
            state.total += size
        }
    }

    /// Every kept connection's packets, merged in time order (a connection's own order kept for equal times); the
    /// recorder is empty afterwards.
    func takeAll() -> [PacketBatch] {
        let rings = state.withLock { state in
            defer {
                state.rings = [:]
                state.total = 0
            }
            return state.rings
        }
        let batches = rings.sorted { $0.key < $1.key }.flatMap { $0.value.packets() }
        return batches.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element)
    }

    /// Drops every kept event.
    func discard() {
        state.withLock { state in
            state.rings = [:]
            state.total = 0
        }
    }

    /// The data bytes pushed out or never kept because of the limits.
    var droppedBytes: Int64 {
        state.withLock { $0.droppedBytes }
    }
}

extension FlightRecorder.Event.Kind {
    var isOpen: Bool {
        if case .open = self { return true }
        return false
    }
}
