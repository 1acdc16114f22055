import FaultEngine
import HTTPWire

/// What a fired fault does on the wire, once per primitive (`FaultWire`): the family of the action (in
/// `FaultEngine/Faults`) says which primitive it is, and this file carries the primitives out, outside the byte
/// stream (`apply`), inside a lane's stream (`applyInStream`), and on a head (`+HTTP`). A fault is recorded when its
/// action reaches the wire (`record`).
///
/// | primitive | outside the stream | in a lane's stream | on a head |
/// |---|---|---|---|
/// | `cut` | the connection ends at once (a reset first writes the client's interim heads) | after the lane's queued bytes | — |
/// | `resetStream` | as a reset `cut`, the stream's code kept for its front | the same | — |
/// | `http2` | the signal kept for the stream's front (`takeHTTP2Signals`) | the same | — |
/// | `closeClient` | nothing | the client's side closes after its queued bytes | the same (the head goes no further) |
/// | `dropFinalHead` | nothing | nothing | the final head is not forwarded: the client's side closes |
/// | `answer` | answers a request awaiting its response, else closes | the same | the request is answered, not forwarded |
/// | `shape` | a lane effect starts (`LaneEffect`) | the same, for the bytes after the position | the same |
/// | `stripInterim`, `rewrite` | nothing | nothing | the interim head is dropped; the field is set |
extension ConnectionFlow {
    /// Applies a decision made outside the byte stream (a connection opening, a tick, a rule change, a fire from the
    /// control API).
    mutating func apply(_ decision: FaultDecision, at now: Duration) {
        switch decision.action.wire {
        case .answer(let response):
            record(decision, at: now, wire: answerIfAwaited(response, at: now))
        case .cut(let reset):
            immediateEnd = reset ? .reset : .close
            record(decision, at: now, wire: .atEnd)
        case .resetStream(let code):
            streamResetCode = code
            immediateEnd = .reset
            record(decision, at: now, wire: .atEnd)
        case .http2(let signal):
            http2Signals.append(signal)
            record(decision, at: now, wire: .now)
        case .shape(let shape, let clientOnly):
            record(decision, at: now, wire: .now)
            startEffect(shape, clientOnly: clientOnly, of: decision, at: now)
        case .closeClient, .dropFinalHead, .stripInterim, .rewrite:
            record(decision, at: now, wire: .now)
        }
    }

    /// Carries out a decision fired inside the stream of `lane`'s source: cuts go after the bytes already queued in
    /// that lane, effects start now.
    mutating func applyInStream(_ decision: FaultDecision, toClientLane: Bool, at now: Duration) {
        switch decision.action.wire {
        case .cut(let reset):
            let marker: FlowItem = reset ? .reset : .close
            toClientLane ? toClient.pushMarker(marker, at: now) : toUpstream.pushMarker(marker, at: now)
            record(decision, at: now, wire: .atEnd)
        case .resetStream(let code):
            streamResetCode = code
            toClientLane ? toClient.pushMarker(.reset, at: now) : toUpstream.pushMarker(.reset, at: now)
            record(decision, at: now, wire: .atEnd)
        case .http2(let signal):
            http2Signals.append(signal)
            record(decision, at: now, wire: .now)
        case .closeClient:
            closeClient(decision, at: now)
        case .answer(let response):
            record(decision, at: now, wire: answerIfAwaited(response, at: now))
        case .shape(let shape, let clientOnly):
            record(decision, at: now, wire: afterQueued(toClientLane: toClientLane))
            startEffect(shape, clientOnly: clientOnly, of: decision, at: now)
        case .dropFinalHead, .stripInterim, .rewrite:
            record(decision, at: now, wire: afterQueued(toClientLane: toClientLane))
        }
    }

    /// Closes the client's side after what is queued for it (`truncate-response` in the stream, `drop-response`
    /// instead of the final head); recorded when the connection's end reaches the wire.
    mutating func closeClient(_ decision: FaultDecision, at now: Duration) {
        toClient.pushMarker(.close, at: now)
        record(decision, at: now, wire: .atEnd)
    }

    /// Sets (or with nil removes) field `name` of a head about to be forwarded.
    static func rewrite(_ fields: inout HTTPFields, name: String, value: String?) {
        if let value { fields.set(value, for: name) } else { fields.remove(name) }
    }

    /// Starts a shaping effect on the lanes of the decision's direction, or on the client's only (`delay-response`).
    mutating func startEffect(_ shape: LaneShape, clientOnly: Bool, of decision: FaultDecision, at now: Duration) {
        let effect = LaneEffect(shape, rule: decision.rule, at: now, expires: decision.expires)
        if clientOnly {
            toClient.add(effect, at: now)
            return
        }
        if decision.direction != .downstream { toUpstream.add(effect, at: now) }
        if decision.direction != .upstream { toClient.add(effect, at: now) }
    }
}
