import HTTPWire

/// What an `HTTP1Parser` made of a whole stream: its events with the body (and opaque) bytes of each message
/// joined, and the error that stopped it, so that two feedings of the same bytes compare equal however they were
/// cut. Heads compare by their parts (method, target, version, each field), not by their storage.
struct HTTPOutcome: Equatable {
    enum Part: Equatable {
        case request(method: String, target: String, version: String, fields: [HTTPField])
        case response(version: String, status: Int, reason: String, fields: [HTTPField])
        case body([UInt8])
        case end(trailers: [HTTPField])
        case upgrade
        case opaque([UInt8])
    }

    var parts: [Part] = []
    /// The error's code and stream offset (its detail may name the parser's state, which is not compared).
    var error: (code: HTTPWireError.Code, offset: Int)?
    var requestHeads: [RequestHead] = []
    var responseHeads: [ResponseHead] = []

    static func == (lhs: HTTPOutcome, rhs: HTTPOutcome) -> Bool {
        lhs.parts == rhs.parts && lhs.error?.code == rhs.error?.code && lhs.error?.offset == rhs.error?.offset
    }

    /// Feeds `chunks` to `parser` in order, then `finish()`.
    static func run(_ parser: HTTP1Parser, _ chunks: [ArraySlice<UInt8>]) -> HTTPOutcome {
        var parser = parser
        var outcome = HTTPOutcome()
        var events: [HTTP1Event] = []
        do {
            for chunk in chunks {
                events.removeAll(keepingCapacity: true)
                try parser.feed(chunk, into: &events)
                outcome.add(events)
            }
            events = []
            outcome.add(try parser.finish())
        } catch {
            outcome.add(events)
            outcome.error = (error.code, error.offset)
        }
        return outcome
    }

    private mutating func add(_ events: [HTTP1Event]) {
        for event in events {
            switch event {
            case .requestHead(let head):
                requestHeads.append(head)
                parts.append(Self.part(head))
            case .responseHead(let head):
                responseHeads.append(head)
                parts.append(Self.part(head))
            case .body(let bytes):
                if case .body(let earlier) = parts.last {
                    parts[parts.count - 1] = .body(earlier + bytes)
                } else {
                    parts.append(.body(Array(bytes)))
                }
            case .end(let trailers):
                parts.append(.end(trailers: Array(trailers)))
            case .upgrade:
                parts.append(.upgrade)
            case .opaque(let bytes):
                if case .opaque(let earlier) = parts.last {
                    parts[parts.count - 1] = .opaque(earlier + bytes)
                } else {
                    parts.append(.opaque(Array(bytes)))
                }
            }
        }
    }

    static func part(_ head: RequestHead) -> Part {
        .request(
            method: head.method.rawValue, target: head.target, version: head.version.description,
            fields: Array(head.fields))
    }

    static func part(_ head: ResponseHead) -> Part {
        .response(
            version: head.version.description, status: head.status, reason: head.reason, fields: Array(head.fields))
    }

    /// Content and opaque bytes never outnumber the input's, and an error lies inside it.
    func checkBounds(inputCount: Int) {
        var content = 0
        for part in parts {
            if case .body(let bytes) = part { content += bytes.count }
            if case .opaque(let bytes) = part { content += bytes.count }
        }
        invariant(content <= inputCount, "\(content) content bytes from \(inputCount) input bytes")
        if let error {
            invariant((0...inputCount).contains(error.offset), "error \(error) outside \(inputCount) input bytes")
        }
    }
}

extension HTTPLimits {
    /// The default limits, or (one time in four) tight ones that the seed corpus's heads and chunk lines reach;
    /// bare line feeds allowed one time in four.
    static func fuzzed(_ choices: inout DerivedChoices) -> HTTPLimits {
        var limits =
            choices.number(below: 4) == 0
            ? HTTPLimits(
                maxHeadSize: 200, maxFieldCount: 4, maxLineLength: 64, maxChunkLineLength: 16, maxTrailerSize: 48)
            : HTTPLimits()
        limits.allowsBareLineFeed = choices.number(below: 4) == 0
        return limits
    }

    /// Limits no serialized head of the fuzzed ones reaches: a re-serialized head may be a little longer than the
    /// one parsed (`Name:value` is written `Name: value`).
    static let roomy = HTTPLimits(
        maxHeadSize: 1 << 24, maxFieldCount: 1 << 20, maxLineLength: 1 << 24, maxChunkLineLength: 1 << 24,
        maxTrailerSize: 1 << 24)
}
