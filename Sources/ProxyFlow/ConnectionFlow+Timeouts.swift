import FaultEngine
import HTTPWire
import SquallCore

/// The upstream connected on demand and the client's timeouts (`ConnectionLimits`): the client's first bytes are
/// held until they make a request, and the head and idle deadlines are the flow's own `deadline`, ticked by the
/// driver like any other.
extension ConnectionFlow {
    /// Bytes the client sent before the upstream was connected. They are held; once they make a request (in http
    /// mode a whole head, or bytes that can never make one: malformed, too large; in tcp mode any byte), the upstream
    /// is connected for them.
    mutating func holdFirstRequest(_ bytes: ArraySlice<UInt8>) -> [ConnectionAction] {
        held.append(bytes)
        if mode == .http {
            var probe = headProbe.take() ?? HTTP1Parser(role: .server)
            if let events = try? probe.feed(bytes), !events.contains(where: Self.isRequestHead) {
                headProbe = probe
                return []
            }
        }
        phase = .connectingUpstream
        return [.connectUpstream]
    }

    private static func isRequestHead(_ event: HTTP1Event) -> Bool {
        if case .requestHead = event { true } else { false }
    }

    /// The upstream leg is up: the held bytes go through the flow as if just read (their faults, their transcript
    /// events), then the flow relays.
    mutating func upstreamReady(at now: Duration, budget: some FaultBudgetAccess) -> [ConnectionAction] {
        phase = .relaying
        let first = held
        held = []
        catchUpRules(budget: budget, at: now)
        for chunk in first { received(chunk, from: .client, at: now, budget: budget) }
        updateTimers(at: now)
        let end = endIfDecided(at: now, budget: budget)
        return end.isEmpty ? [.relay] : end
    }

    /// The next time the flow wants a `tick` of its own: the head deadline, the end of the idle time, or the end
    /// of a wait for an announcement or of a deferred cut (`+Announcement`).
    public var deadline: Duration? {
        let idleEnd = idleSince.flatMap { since in limits.idleTimeout.map { since + $0 } }
        return [headDeadline, idleEnd, announcement.deadline].compactMap { $0 }.min()
    }

    /// Re-reads the timers after bytes came or went while relaying in http mode: a later head that began (once the
    /// exchange before it is over) must be whole by its deadline, and a connection with nothing in flight and
    /// nothing queued is idle from now on.
    mutating func updateTimers(at now: Duration) {
        guard phase == .relaying else { return }
        guard mode == .http, !opaque else {
            headDeadline = nil
            idleSince = nil
            return
        }
        let exchangeOver = request == nil && response == nil && unanswered.isEmpty
        if exchangeOver, requestParser.isInsideHead {
            if headDeadline == nil { headDeadline = limits.headTimeout.map { now + $0 } }
        } else {
            headDeadline = nil
        }
        let idle = exchangeOver && requestParser.isBetweenMessages && toUpstream.isEmpty && toClient.isEmpty
        idleSince = idle ? (idleSince ?? now) : nil
    }

    /// A tick at `now`: a head past its deadline gets the proxy's 408 (in tcp mode, where no byte came, the connection
    /// closes), an idle connection past its idle timeout closes.
    mutating func timersDue(at now: Duration) -> [ConnectionAction] {
        if let due = headDeadline, now >= due {
            headDeadline = nil
            held = []
            headProbe = nil
            guard mode == .http else { return proxyEnds(.fin) }
            let limit = limits.headTimeout.flatMap(DurationText.format) ?? "its deadline"
            let message = "squall proxy: the request head did not arrive whole within \(limit) (--head-timeout)"
            answer(Self.proxyError(408, message), at: now, close: true, exchange: requests + 1)
            return []
        }
        if let since = idleSince, let timeout = limits.idleTimeout, now >= since + timeout {
            idleSince = nil
            return proxyEnds(.fin)
        }
        return []
    }
}
