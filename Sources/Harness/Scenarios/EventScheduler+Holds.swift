import FaultEngine
import Scenario

/// When an event held at its progress point is due (`ScenarioRun+Holds` places and releases the holds).
///
/// ```
///  at-progress event ─▶ hold at the position (waits for the creation's 104: `Announcement`) ─▶ fired
///     └─ stops the client, or resets its connections? ─▶ … and the client journaled the announced upload (or the
///        wait is over) ─▶ due
/// ```
extension EventScheduler {
    /// Whether the upload is held at the event's progress point until it plays: every progress event but a
    /// relaunch, which waits for the client to have stopped (held, the upload would never let it stop), so that
    /// reaching its point is not enough to play it either.
    static func holdsTheUpload(_ event: ScenarioEvent) -> Bool {
        guard case .progress = event.trigger else { return false }
        return event.action != .relaunchClient
    }

    /// How long an event at a progress point waits for the announcement (its `announcement-wait`; none for
    /// `"before"`).
    static func announcementWait(_ event: ScenarioEvent) -> Duration {
        guard case .progress(_, _, .awaited(let within)) = event.trigger else { return .zero }
        return within
    }

    /// Whether a held progress event is due at `now`: its hold fired, and then
    /// - for an event that stops the client or resets its connections (`switch-network`, `network-down`), the client
    ///   journaled the upload resource the request's 104 had announced to it (it resumes only what its journal holds;
    ///   and a 104 written to a socket that is then reset may be dropped unread by the client's kernel, over HTTP/2
    ///   while the client is busy writing), or no 104 had;
    /// - for a `restart-server` of the reference server reporting its progress every `progress-interval`, the
    ///   server reported (so stored) more than the position less one interval: it reports once it has an interval
    ///   more than its last report, so with every byte up to the position read, its last report is within an
    ///   interval of it; a kill loses what the server had not read yet, and just after its 104 that is everything;
    /// or the event's announcement wait is over.
    func heldEventIsDue(_ index: Int, now: Duration, facts: some EventFacts) -> Bool {
        let event = events[index]
        guard let firing = facts.firing(ofHold: index) else { return false }
        guard waitsAfterHold(event, firing) else { return true }
        if now >= firing.time + Self.announcementWait(event) { return true }
        if let path = firing.announced, Self.waitsForTheClientsRecord(event.action) {
            return facts.hasRecorded(uploadResource: path)
        }
        guard let step = storedStep, let offset = firing.offset else { return true }
        return facts.acknowledged(after: firing) > offset - step
    }

    /// Whether a pending held event is due at `now`: what ends a `wait` sooner.
    func heldEventDue(now: Duration, facts: some EventFacts) -> Bool {
        pending.contains { Self.holdsTheUpload(events[$0]) && heldEventIsDue($0, now: now, facts: facts) }
    }

    /// When the first wait of a pending held event after its hold fired is over (see `heldEventIsDue`).
    func nextRecordingBound(facts: some EventFacts) -> Duration? {
        pending.compactMap { index -> Duration? in
            let event = events[index]
            guard Self.holdsTheUpload(event), let firing = facts.firing(ofHold: index), waitsAfterHold(event, firing)
            else { return nil }
            return firing.time + Self.announcementWait(event)
        }.min()
    }

    /// Whether the event waits for the client to have journaled the announced upload: it stops the client or resets
    /// its connections.
    static func waitsForTheClientsRecord(_ action: EventAction) -> Bool {
        action.stopsClient || action == .switchNetwork || action == .networkDown
    }

    /// Whether the event waits for more than its hold having fired (see `heldEventIsDue`).
    private func waitsAfterHold(_ event: ScenarioEvent, _ firing: UploadProgressIndex.Firing) -> Bool {
        if Self.waitsForTheClientsRecord(event.action) { return firing.announced != nil }
        guard event.action == .restartServer, storedStep != nil, let version = firing.version else { return false }
        return version.sendsProgress
    }
}
