extension Transcript {
    /// The exchanges on `connection`, by exchange number, each with its heads, byte totals and upload coverage.
    /// Totals and range ends saturate at `Int64.max`: a transcript read back from a file may hold any 64-bit counts.
    public func exchanges(connection: Int) -> [TranscriptExchange] {
        var exchanges: [Int: TranscriptExchange] = [:]
        var uploadRanges: [Int: [Range<Int64>]] = [:]
        for event in events where event.connection == connection {
            guard let number = event.kind.exchange else { continue }
            var exchange = exchanges[number] ?? TranscriptExchange(connection: connection, number: number)
            switch event.kind {
            case .requestHead(_, let head): exchange.request = head
            case .requestForwarded(_, let head): exchange.forwardedRequest = head
            case .proxyAnswered: exchange.answeredByProxy = true
            case .interimResponse(_, let head): exchange.interims.append(head)
            case .finalResponse(_, let head): exchange.response = head
            case .requestBody(_, _, let length, let uploadOffset):
                exchange.requestBodyBytes = Self.saturatingSum(exchange.requestBodyBytes, length)
                if let uploadOffset {
                    uploadRanges[number, default: []].append(uploadOffset..<Self.saturatingSum(uploadOffset, length))
                }
            case .requestBodyDropped(_, _, let length, _):
                exchange.droppedRequestBodyBytes = Self.saturatingSum(exchange.droppedRequestBodyBytes, length)
            case .responseBody(_, _, let length):
                exchange.responseBodyBytes = Self.saturatingSum(exchange.responseBodyBytes, length)
            default: break
            }
            exchanges[number] = exchange
        }
        return exchanges.values.sorted { $0.number < $1.number }.map { exchange in
            var exchange = exchange
            exchange.uploadCoverage = TranscriptExchange.merge(uploadRanges[exchange.number] ?? [])
            return exchange
        }
    }

    /// `lhs + rhs` for counts of 0 or more, `Int64.max` past it.
    private static func saturatingSum(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? .max : sum
    }

    /// The connections seen, in order of their first kept event.
    public var connections: [Int] {
        var seen = Set<Int>()
        return events.filter { if case .started = $0.kind { false } else { true } }.map(\.connection)
            .filter { seen.insert($0).inserted }
    }

    /// Every fault fired, in order, with when and on which connection.
    public func faultsFired() -> [(time: Duration, connection: Int, fault: FiredFault)] {
        events.compactMap { event in
            guard case .faultFired(let fault) = event.kind else { return nil }
            return (event.time, event.connection, fault)
        }
    }

    /// Every rule that matched a request but could not fire in it, in order (`faultUnresolved` events).
    public func faultsUnresolved() -> [(time: Duration, connection: Int, rule: String, exchange: Int, reason: String)] {
        events.compactMap { event in
            guard case .faultUnresolved(let rule, let exchange, let reason) = event.kind else { return nil }
            return (event.time, event.connection, rule, exchange, reason)
        }
    }

    /// The closes, in order, optionally only those by `side` and of `kind`.
    public func closes(
        side: CloseSide? = nil, kind: CloseKind? = nil
    ) -> [(time: Duration, connection: Int, side: CloseSide, kind: CloseKind)] {
        events.compactMap { event in
            guard case .closed(let eventSide, let eventKind) = event.kind, side.map({ $0 == eventSide }) ?? true,
                kind.map({ $0 == eventKind }) ?? true
            else { return nil }
            return (event.time, event.connection, eventSide, eventKind)
        }
    }
}

extension TranscriptEvent.Kind {
    /// The exchange number of a request or response event; nil for connection-level events.
    public var exchange: Int? {
        switch self {
        case .requestHead(let exchange, _), .requestBody(let exchange, _, _, _),
            .requestBodyDropped(let exchange, _, _, _), .requestWritten(let exchange, _, _),
            .interimResponse(let exchange, _),
            .finalResponse(let exchange, _), .responseBody(let exchange, _, _), .faultUnresolved(_, let exchange, _),
            .requestForwarded(let exchange, _), .proxyAnswered(let exchange), .locationRewritten(let exchange, _, _),
            .announcementAwaited(let exchange, _, _), .announcementWaitEnded(let exchange, _),
            .announcementWithheld(let exchange, _), .clientAnnouncement(let exchange, _, _):
            exchange
        case .started, .opened, .tlsEstablished, .tlsFailed, .closed, .faultFired, .streamReset, .goaway, .http2Stream:
            nil
        }
    }
}
