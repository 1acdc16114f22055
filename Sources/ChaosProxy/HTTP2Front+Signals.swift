import FaultEngine
import HTTP2Wire
import ProxyTranscript

/// What reaches the front from outside its session: the resets and stops sent to the connection itself, and the
/// HTTP/2 faults its streams' flows fired (`window-stall`, `goaway`), with the resets they cause.
extension HTTP2Front {
    /// Applies what the streams' fired HTTP/2 faults ask (`HTTP2Signal`).
    /// Whether the connection's own handle was told to reset or stop (its other messages are for a flow it has not).
    func parentWantsReset() -> Bool {
        parent.receive().contains { message in
            switch message {
            case .reset, .stop: true
            case .fire(let decision):
                switch decision.action {
                case .reset, .close: true
                default: false
                }
            case .rulesChanged: false
            }
        }
    }

    func takeSignals() {
        wake.drain()
        for stream in Array(links.keys) { takeSignals(of: stream) }
    }

    /// Carries out what `stream`'s flow asked of the front. Also called when its exchange ends, before the stream
    /// is let go: a flow publishes its signals before it closes its end of the pair.
    func takeSignals(of stream: Int32) {
        guard let link = links[stream] else { return }
        for signal in link.handle.http2Signals.withLock({ signals in
            defer { signals = [] }
            return signals
        }) {
            switch signal {
            case .goaway(let code, let last, let graceful):
                goAway(code: HTTP2ErrorCode(rawValue: code), last: last, firedOn: stream, graceful: graceful)
            case .settings(let settings):
                session.submitSettings(settings)
            case .pingTimeout(let duration):
                let until = duration.map { ContinuousClock.now + $0 } ?? .now + .seconds(100 * 365 * 86_400)
                pingsHeldUntil = max(pingsHeldUntil ?? until, until)
            case .windowStall(let duration, let connection):
                let until = duration.map { ContinuousClock.now + $0 } ?? .now + .seconds(100 * 365 * 86_400)
                if connection {
                    connectionStalledUntil = max(connectionStalledUntil ?? until, until)
                } else {
                    links[stream]?.stalledUntil = until
                }
            }
        }
    }

    /// Whether the client's `PING`s go unacknowledged now (`ping-timeout`).
    var pingsHeld: Bool {
        pingsHeldUntil.map { $0 > .now } ?? false
    }

    /// Acknowledges the `PING`s held once their `ping-timeout` is over.
    func releasePings() {
        guard !heldPings.isEmpty, !pingsHeld else { return }
        for opaque in heldPings { session.acknowledgePing(opaque) }
        heldPings = []
    }

    /// Sends `GOAWAY` (once): the streams above the last one it names are refused, their exchanges cut. A refusal
    /// promises the client that the server never saw the request, so a stream is refused only when the front claims
    /// its request before its connection forwards a byte of it (`ConnectionHandle.claimRefusal`); the last stream is
    /// raised over every stream whose request went upstream first, as a server's own `GOAWAY` would be.
    func goAway(code: HTTP2ErrorCode, last: GoawayLastStream, firedOn stream: Int32, graceful: Bool) {
        guard goingAway == nil else { return }
        let named: Int32
        switch last {
        case .this: named = stream
        case .before: named = max(0, stream - 2)
        case .id(let id): named = id
        }
        // The stream it fired on with `before` is refused even below a raised last stream: its request was held back
        // (`RST_STREAM` `REFUSED_STREAM` tells the client so for one stream).
        var lastID = named
        var refused: [Int32] = []
        for id in links.keys.sorted() where id > named || (id == stream && last == .before) {
            // A stream answered already (by the proxy, say) was processed as far as its client knows.
            if let link = links[id], !link.finalSent, link.handle.claimRefusal() {
                refused.append(id)
            } else {
                lastID = max(lastID, id)
            }
        }
        session.goAway(lastStream: lastID, code: code)
        record(parent.id, .goaway(lastStream: lastID, code: code.rawValue))
        for id in refused {
            guard let link = removeLink(id) else { continue }
            resetStream(id, link, code: .refusedStream)
            link.pair.abort()
        }
        goingAway = (graceful, true)
    }

    /// Resets `stream` toward the client, and records it on the stream's connection.
    func resetStream(_ stream: Int32, _ link: Link, code: HTTP2ErrorCode) {
        session.reset(stream, code: code)
        record(link.handle.id, .streamReset(side: .proxy, code: code.rawValue))
    }
}
