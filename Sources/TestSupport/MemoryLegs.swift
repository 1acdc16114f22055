import ProxyFlow
import ProxyTranscript

/// A `FlowDriver`'s legs in memory, for the tests and the fuzz target: what is written to each side (in writes of at
/// most `writeLimit` bytes; a side not in `writable` blocks), the capture marks and the events recorded, on a clock
/// the test sets.
public struct MemoryLegs: FlowLegs {
    public var now: Duration
    public var writeLimit = Int.max
    public var writable: Set<FlowSide> = [.client, .upstream]
    public var written: [FlowSide: [UInt8]] = [.client: [], .upstream: []]
    public var marks: [CaptureMark] = []
    private var recorded: [TranscriptEvent] = []

    public init(now: Duration = .zero) {
        self.now = now
    }

    public mutating func write(_ bytes: ArraySlice<UInt8>, to side: FlowSide) -> FlowWrite {
        guard writable.contains(side) else { return .blocked }
        let count = min(writeLimit, bytes.count)
        written[side, default: []] += bytes.prefix(count)
        return .done(count)
    }

    public mutating func shutDown(_ side: FlowSide) -> FlowWrite {
        writable.contains(side) ? .done(0) : .blocked
    }

    public mutating func mark(_ mark: CaptureMark) {
        marks.append(mark)
    }

    public mutating func record(_ events: [TranscriptEvent]) {
        recorded += events
    }

    /// The events recorded since the last call.
    public mutating func takeRecorded() -> [TranscriptEvent] {
        defer { recorded = [] }
        return recorded
    }
}
