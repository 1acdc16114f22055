/// The proxy's record of what happened, in the order it happened: a list of `TranscriptEvent`s, optionally
/// bounded, with the queries the harness asks of it.
///
/// Bounded by a count (`cap`) or by memory (`byteCap`, against each event's `footprint`), appending past either
/// drops the oldest events and counts them in `droppedCount`, so a long run keeps its recent history in bounded
/// memory: the kept events, plus dropped ones awaiting compaction, at most an eighth more (or 64 events).
///
/// ```swift
/// var transcript = Transcript(byteCap: 8 << 20)
/// transcript.append(TranscriptEvent(time: now, connection: 1, kind: .opened(client: peer, listener: local)))
/// transcript.exchanges(connection: 1).first?.uploadCoverage   // [3145728..<8388608]
/// ```
public struct Transcript: Sendable {
    /// The most events kept; nil: no count limit.
    public let cap: Int?
    /// The most bytes of events kept, by their `footprint`; nil: no memory limit. The newest event is always kept.
    public let byteCap: Int?
    /// Events dropped because of a limit, oldest first.
    public private(set) var droppedCount = 0
    /// The kept events' `footprint`s added up.
    public private(set) var keptBytes = 0
    /// The kept events are `storage[start...]`.
    private var storage: [TranscriptEvent] = []
    private var start = 0

    /// An empty transcript keeping at most `cap` events and `byteCap` bytes of them (each at least 1), or every
    /// event when both are nil.
    public init(cap: Int? = nil, byteCap: Int? = nil) {
        precondition(cap.map { $0 > 0 } ?? true, "a transcript cap must be positive")
        precondition(byteCap.map { $0 > 0 } ?? true, "a transcript byte cap must be positive")
        self.cap = cap
        self.byteCap = byteCap
    }

    /// The kept events, oldest first.
    public var events: [TranscriptEvent] { Array(storage[start...]) }

    /// How many events are kept.
    public var count: Int { storage.count - start }

    /// How many events were ever appended (kept and dropped): the position after the last one.
    public var appendedCount: Int { droppedCount + count }

    /// The kept events appended at or after `position` (a value of `appendedCount`), without copying the others:
    /// for readers that follow the transcript as it grows.
    public func events(since position: Int) -> ArraySlice<TranscriptEvent> {
        storage[(start + min(max(position - droppedCount, 0), count))...]
    }

    /// Records `event` after the others, dropping the oldest ones while a limit is passed.
    public mutating func append(_ event: TranscriptEvent) {
        storage.append(event)
        keptBytes += event.footprint
        guard cap != nil || byteCap != nil else { return }
        while count > 1, count > cap ?? .max || keptBytes > byteCap ?? .max {
            keptBytes -= storage[start].footprint
            start += 1
            droppedCount += 1
        }
        // Compacted once the dropped prefix is an eighth of the kept events (or 64), so that it costs each append
        // a few moves at most and never holds much beyond the limits.
        if start >= max(64, count / 8) {
            storage.removeFirst(start)
            start = 0
        }
    }

    /// Every kept event as JSON Lines, one `jsonLine()` per line, each ending in a newline.
    public func jsonLines() -> String {
        storage[start...].jsonLines()
    }
}

extension Sequence<TranscriptEvent> {
    /// The events as JSON Lines, one `jsonLine()` per line, each ending in a newline.
    public func jsonLines() -> String {
        var text = ""
        for event in self {
            text += event.jsonLine()
            text += "\n"
        }
        return text
    }
}
