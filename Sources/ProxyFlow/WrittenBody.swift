import ProxyTranscript

/// How far each request body has reached the upstream's socket, for the `requestWritten` events: a mark is queued
/// with each forwarded piece of a body, passes once the lane has written the bytes queued before it, and is
/// recorded stamped with the time it passed. Recorded at most every `spacing` while more is queued (a paced upload
/// costs a few events a second), and before any other event of the connection, so that a body's last point comes
/// before its response.
struct WrittenBody: Sendable {
    struct Mark: Sendable {
        /// The lane's `queuedTotal` before and after the piece: the piece is written once `writtenTotal` reaches
        /// `position`, and in part past `start` (chunk framing counted as body: the part is clamped to the piece).
        var start: Int64
        var position: Int64
        var exchange: Int
        var through: Int64
        var uploadThrough: Int64?
    }

    /// The least time between two recorded marks while a body streams.
    static let spacing: Duration = .milliseconds(50)

    let connection: Int

    private var marks: [Mark] = []
    /// The newest mark that passed and is not recorded yet, and when it passed.
    private var passed: (mark: Mark, at: Duration)?
    private var lastRecorded: Duration?

    init(connection: Int) {
        self.connection = connection
    }

    mutating func queue(_ mark: Mark) {
        marks.append(mark)
    }

    /// The lane has written `total` bytes by `now`: the events to record now (a mark of an earlier exchange at
    /// once; the newest when `spacing` has passed since the last recorded).
    mutating func wrote(total: Int64, at now: Duration) -> [TranscriptEvent] {
        var due: [TranscriptEvent] = []
        var count = 0
        while count < marks.count, marks[count].position <= total {
            let mark = marks[count]
            if let earlier = passed, earlier.mark.exchange != mark.exchange { due.append(record(earlier)) }
            passed = (mark, now)
            count += 1
        }
        marks.removeFirst(count)
        // A piece the lane writes in parts (paced, sliced, a slow peer): the part written so far.
        if let partial = marks.first, total > partial.start {
            let missing = partial.position - total
            var part = partial
            part.through = max(partial.through - (partial.position - partial.start), partial.through - missing)
            part.uploadThrough = partial.uploadThrough.map { $0 - (partial.through - part.through) }
            if let earlier = passed, earlier.mark.exchange != part.exchange { due.append(record(earlier)) }
            if passed.map({ $0.mark.through < part.through }) ?? true { passed = (part, now) }
        }
        if let newest = passed, lastRecorded.map({ now - $0 >= Self.spacing }) ?? true { due.append(record(newest)) }
        return due
    }

    /// The mark that passed and waits to be recorded, taken: any (nil `now`), or one that passed at least `spacing`
    /// before `now`.
    mutating func take(at now: Duration? = nil) -> TranscriptEvent? {
        guard let waiting = passed, now.map({ $0 - waiting.at >= Self.spacing }) ?? true else { return nil }
        return record(waiting)
    }

    private mutating func record(_ passed: (mark: Mark, at: Duration)) -> TranscriptEvent {
        self.passed = nil
        lastRecorded = passed.at
        let mark = passed.mark
        return TranscriptEvent(
            time: passed.at, connection: connection,
            kind: .requestWritten(exchange: mark.exchange, through: mark.through, uploadThrough: mark.uploadThrough))
    }
}
