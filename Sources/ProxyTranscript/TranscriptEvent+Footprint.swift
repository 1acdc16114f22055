import HTTPWire

extension TranscriptEvent {
    /// About how many bytes of memory the event holds, for `Transcript`'s byte budget: its inline size plus the
    /// heap storage of its texts and field sections (each with a 32-byte allocation header). An estimate that never
    /// undercounts much: the budget bounds memory, it is not an accounting of it.
    public var footprint: Int {
        let inline = MemoryLayout<TranscriptEvent>.stride
        switch kind {
        case .opened(let client, let listener): return inline + Self.text(client) + Self.text(listener)
        case .tlsEstablished(_, let session):
            return inline + Self.text(session.serverName ?? "") + Self.text(session.alpn ?? "")
                + Self.text(session.version) + Self.text(session.cipher)
        case .tlsFailed(_, let reason): return inline + Self.text(reason)
        case .requestHead(_, let head), .requestForwarded(_, let head):
            return inline + Self.text(head.target) + head.fields.footprint
        case .interimResponse(_, let head), .finalResponse(_, let head):
            return inline + Self.text(head.reason) + head.fields.footprint
        case .locationRewritten(_, let from, let to): return inline + Self.text(from) + Self.text(to)
        case .faultFired(let fault): return inline + Self.text(fault.rule) + Self.text(fault.action)
        case .faultUnresolved(let rule, _, let reason): return inline + Self.text(rule) + Self.text(reason)
        case .announcementAwaited(_, let rule, _), .announcementWithheld(_, let rule): return inline + Self.text(rule)
        case .clientAnnouncement(_, let location, let outcome):
            return inline + Self.text(location) + (outcome.rule.map(Self.text) ?? 0)
        case .started, .requestBody, .requestWritten, .requestBodyDropped, .proxyAnswered, .responseBody, .closed,
            .announcementWaitEnded, .streamReset, .goaway, .http2Stream:
            return inline
        }
    }

    /// A string's heap bytes: none when it fits inline (15 UTF-8 bytes), else its bytes and a header.
    private static func text(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : count + 32
    }
}
