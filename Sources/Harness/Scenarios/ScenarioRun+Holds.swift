import ChaosProxy
import FaultEngine
import ProxyTranscript
import Scenario

/// The holds a run places at its progress events (hidden `stall` rules, `squall-hold-<index>`): when a held event
/// is due, and how its hold ends.
///
/// ```
///  at-progress event ─▶ hold at the position (waits for the creation's 104: `Announcement`) ─▶ fired
///     └─ stops the client? ─▶ … and the client journaled the announced upload (or the wait is over) ─▶ due
///  played ─▶ stops the client? reset the held connection ─▶ the hold removed (the bytes go on, or are gone)
/// ```
extension ScenarioRun {
    /// Whether the upload is held at the event's progress point until it plays: every progress event but a
    /// relaunch, which waits for the client to have stopped (held, the upload would never let it stop), so that
    /// reaching its point is not enough to play it either.
    static func holdsTheUpload(_ event: ScenarioEvent) -> Bool {
        guard case .progress = event.trigger else { return false }
        return event.action != .relaunchClient
    }

    /// The name of the hold placed for the event at `index` of the scenario.
    static func holdName(_ index: Int) -> String { "squall-hold-\(index)" }

    /// A hold for each progress-triggered event: the proxy stops carrying the request's bytes to the server at the
    /// event's position, until the event has played (`played` removes the rule, which releases them). So a
    /// server restart, a kill or a network switch at 50 % lands once exactly 50 % was forwarded to the server,
    /// however loaded the machine, instead of wherever the upload got while the run noticed.
    static func holds(for events: [ScenarioEvent]) throws -> [FaultRule] {
        try events.enumerated().compactMap { index, event in
            guard case .progress(let position, let asset, let announcement) = event.trigger, holdsTheUpload(event)
            else { return nil }
            var match = FaultMatch()
            if let asset { match.header = HeaderMatch(name: "X-Filename", value: Glob(asset)) }
            return try FaultRule(
                name: holdName(index), match: match, trigger: .atOffset(position, announcement: announcement),
                action: .stall(duration: nil, thenClose: false), direction: .upstream, times: 1, optional: true)
        }
    }

    /// Whether a held progress event is due: its hold fired, and then
    /// - for an event that stops the client, the client journaled the upload resource the request's 104 had announced
    ///   to it (it resumes only what its journal holds), or no 104 had;
    /// - for a `restart-server` of the reference server reporting its progress every `progress-interval`, the
    ///   server reported (so stored) more than the position less one interval: it reports once it has an interval
    ///   more than its last report, so with every byte up to the position read, its last report is within an
    ///   interval of it; a kill loses what the server had not read yet, and just after its 104 that is everything;
    /// or the event's announcement wait is over.
    func progressDue(_ item: (index: Int, event: ScenarioEvent), in transcript: Transcript) -> Bool {
        let hold = Self.holdName(item.index)
        guard progress.reached(item.event, hold: hold, in: transcript) else { return false }
        guard let firing = progress.firing(of: hold, in: transcript), waitsAfterHold(item.event, firing) else {
            return true
        }
        if proxy.now >= firing.time + Self.announcementWait(item.event) { return true }
        if let path = firing.announced, item.event.action.stopsClient {
            return client.hasRecorded(uploadResource: path)
        }
        guard let step = storedStep, let offset = firing.offset else { return true }
        return progress.acknowledged(after: firing, in: transcript) > offset - step
    }

    /// Whether the event waits for more than its hold having fired (see `progressDue`).
    private func waitsAfterHold(_ event: ScenarioEvent, _ firing: UploadProgressIndex.Firing) -> Bool {
        if event.action.stopsClient { return firing.announced != nil }
        guard event.action == .restartServer, storedStep != nil, let version = firing.version else { return false }
        return version.sendsProgress
    }

    /// The reference server's progress interval, when it reports every one (no limit, no spacing): what a
    /// `restart-server` waits to see stored.
    private var storedStep: Int64? {
        let spec = scenario.server
        guard server != nil, spec.progressInterval > 0, spec.progressLimit == nil, spec.progressSpacing == .zero
        else { return nil }
        return spec.progressInterval
    }

    /// When the wait of a held event after its hold fired is over (see `progressDue`).
    func nextRecordingBound() -> ContinuousClock.Instant? {
        pending.compactMap { item -> ContinuousClock.Instant? in
            guard Self.holdsTheUpload(item.event),
                let firing = progress.firing(of: Self.holdName(item.index), in: proxy.transcript),
                waitsAfterHold(item.event, firing)
            else { return nil }
            return .now + (firing.time + Self.announcementWait(item.event) - proxy.now)
        }.min()
    }

    /// How long an event at a progress point waits for the announcement (its `announcement-wait`; none for
    /// `"before"`).
    static func announcementWait(_ event: ScenarioEvent) -> Duration {
        guard case .progress(_, _, .awaited(let within)) = event.trigger else { return .zero }
        return within
    }

    /// Lets the bytes held at the event's position go on (nothing when it had no hold). After an event that stopped
    /// the client, its held connection is reset first (as no fault: a close in the transcript, nothing in the fault
    /// timeline, since the connection may have closed by itself already): the client is gone, and released, the
    /// bytes it had sent past the position would reach the server after all (or not, as the proxy happened to read
    /// the client's end first), so the server holds exactly the bytes up to the position. After such a reset, or an
    /// event that resets connections (`switch-network`, `network-down`), the hold goes only once the connection has
    /// closed (at most `resetPatience`): the reset waits in its inbox, and a rule change reaches a busy connection
    /// sooner, through the shared rules, so that released first, the held bytes would go on before the RST.
    func releaseHold(_ index: Int) {
        guard case .progress = scenario.events[index].trigger else { return }
        let hold = Self.holdName(index)
        let action = scenario.events[index].action
        if records[index].played, let firing = progress.firing(of: hold, in: proxy.transcript) {
            if action.stopsClient { proxy.reset(connection: firing.connection) }
            if action.stopsClient || action == .switchNetwork || action == .networkDown {
                let progress = self.progress
                _ = proxy.waitForTranscript(timeout: Self.resetPatience) { transcript in
                    progress.hasClosed(firing.connection, in: transcript)
                }
            }
        }
        try? proxy.removeFaultRule(named: hold)
    }

    /// The longest a hold waits for its connection's reset before it is removed anyway.
    static let resetPatience: Duration = .seconds(2)
}
