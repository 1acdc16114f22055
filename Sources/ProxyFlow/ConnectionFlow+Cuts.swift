import FaultEngine

/// The cuts: `reset` and `refuse` end the connection with RSTs, `close` with FINs, `truncate-response` and
/// `drop-response` close the client's lane; each is recorded when the connection's end reaches the wire.
extension ConnectionFlow {
    /// Ends the connection at once (not after queued bytes) for a cut decided outside the byte stream; false when
    /// the action is not such a cut.
    mutating func cutNow(_ decision: FaultDecision, at now: Duration) -> Bool {
        switch decision.action {
        case .reset, .refuse: immediateEnd = .reset
        case .close: immediateEnd = .close
        default: return false
        }
        record(decision, at: now, wire: .atEnd)
        return true
    }

    /// Cuts after the bytes already queued in the lane whose source fired the decision; false when the action is
    /// not a cut.
    mutating func cutInStream(_ decision: FaultDecision, toClientLane: Bool, at now: Duration) -> Bool {
        switch decision.action {
        case .reset, .refuse, .close:
            let marker: FlowItem = decision.action == .close ? .close : .reset
            toClientLane ? toClient.pushMarker(marker, at: now) : toUpstream.pushMarker(marker, at: now)
        case .truncateResponse:
            toClient.pushMarker(.close, at: now)
        default:
            return false
        }
        record(decision, at: now, wire: .atEnd)
        return true
    }

    /// `drop-response`: the final head is not forwarded, the connection closes instead.
    mutating func dropResponse(_ decision: FaultDecision, at now: Duration) {
        toClient.pushMarker(.close, at: now)
        record(decision, at: now, wire: .atEnd)
    }
}
