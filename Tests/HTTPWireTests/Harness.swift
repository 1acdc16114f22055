import HTTPWire

/// What a parser made of a byte stream: its events, with adjacent body (and opaque) slices merged so that
/// different splittings compare equal, and the error that stopped it, if any.
struct Outcome: Equatable, CustomStringConvertible {
    var events: [HTTP1Event] = []
    var error: HTTPWireError?

    static func == (lhs: Outcome, rhs: Outcome) -> Bool {
        lhs.events == rhs.events && lhs.error?.code == rhs.error?.code && lhs.error?.offset == rhs.error?.offset
    }

    var endCount: Int {
        events.count { if case .end = $0 { true } else { false } }
    }

    var description: String {
        "\(events.map(Outcome.describe)) error: \(error.map(String.init(describing:)) ?? "none")"
    }

    private static func describe(_ event: HTTP1Event) -> String {
        switch event {
        case .requestHead(let head): "request \(head.method) \(head.target) [\(head.fields)]"
        case .responseHead(let head): "response \(head.status) [\(head.fields)]"
        case .body(let bytes): "body(\(bytes.count))"
        case .end(let trailers): "end [\(trailers)]"
        case .upgrade: "upgrade"
        case .opaque(let bytes): "opaque(\(bytes.count))"
        }
    }
}

/// Feeds byte streams to parsers chunk by chunk.
enum Harness {
    /// Feeds `chunks` to `parser`, then calls `finish()` when `finishing`.
    static func run(_ parser: HTTP1Parser, _ chunks: [[UInt8]], finishing: Bool = true) -> Outcome {
        var parser = parser
        var events: [HTTP1Event] = []
        do {
            for chunk in chunks {
                try parser.feed(chunk[...], into: &events)
            }
            if finishing {
                events += try parser.finish()
            }
            return Outcome(events: merged(events))
        } catch {
            return Outcome(events: merged(events), error: error)
        }
    }

    /// The corpus entry fed as `chunks`.
    static func run(_ entry: CorpusEntry, _ chunks: [[UInt8]], finishing: Bool = true) -> Outcome {
        run(entry.parser(), chunks, finishing: finishing)
    }

    /// `events` with adjacent `.body` slices, and adjacent `.opaque` slices, joined.
    static func merged(_ events: [HTTP1Event]) -> [HTTP1Event] {
        var result: [HTTP1Event] = []
        for event in events {
            switch (result.last, event) {
            case (.body(let previous), .body(let next)):
                result[result.count - 1] = .body(previous + next)
            case (.opaque(let previous), .opaque(let next)):
                result[result.count - 1] = .opaque(previous + next)
            default:
                result.append(event)
            }
        }
        return result
    }

    /// Whether `partial` could be the start of `full`: equal events, except that its last one may be a body or
    /// opaque slice that `full` continues.
    static func isPrefix(_ partial: [HTTP1Event], of full: [HTTP1Event]) -> Bool {
        guard partial.count <= full.count else { return false }
        for (index, event) in partial.enumerated() where event != full[index] {
            guard index == partial.count - 1 else { return false }
            switch (event, full[index]) {
            case (.body(let part), .body(let whole)), (.opaque(let part), .opaque(let whole)):
                return whole.starts(with: part)
            default:
                return false
            }
        }
        return true
    }
}
