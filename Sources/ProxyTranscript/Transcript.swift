/// The proxy's record of what happened, in the order it happened: a list of `TranscriptEvent`s, optionally
/// bounded, with the queries the harness asks of it.
///
/// With a `cap`, appending past it drops the oldest event and counts it in `droppedCount`, so a long run keeps
/// the recent history in bounded memory (at most twice the cap, compacted as it goes).
///
/// ```swift
/// var transcript = Transcript(cap: 100_000)
/// transcript.append(TranscriptEvent(time: now, connection: 1, kind: .opened(client: peer, listener: local)))
/// transcript.exchanges(connection: 1).first?.uploadCoverage   // [3145728..<8388608]
/// ```
public struct Transcript: Sendable {
    /// The most events kept; nil keeps all.
    public let cap: Int?
    /// Events dropped because of the cap, oldest first.
    public private(set) var droppedCount = 0
    /// The kept events are `storage[start...]`.
    private var storage: [TranscriptEvent] = []
    private var start = 0

    /// An empty transcript keeping at most `cap` events (at least 1), or every event when nil.
    public init(cap: Int? = nil) {
        precondition(cap.map { $0 > 0 } ?? true, "a transcript cap must be positive")
        self.cap = cap
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

    /// Records `event` after the others, dropping the oldest one if the cap is reached.
    public mutating func append(_ event: TranscriptEvent) {
        storage.append(event)
        guard let cap, count > cap else { return }
        start += 1
        droppedCount += 1
        if start >= cap {
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
