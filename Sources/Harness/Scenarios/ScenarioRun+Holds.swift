import ChaosProxy
import FaultEngine
import ProxyTranscript
import Scenario

/// The holds a run places at its progress events (hidden `stall` rules, `squall-hold-<index>`), what the scheduler
/// learns of them, and how a hold ends (when a held event is due: `EventScheduler+Holds`).
///
/// ```
///  at-progress event ─▶ hold at the position ─▶ fired ─▶ … due (`EventScheduler.heldEventIsDue`) ─▶ played
///  played ─▶ stops the client? reset the held connection ─▶ the hold removed (the bytes go on, or are gone)
/// ```
extension ScenarioRun {
    /// The name of the hold placed for the event at `index` of the scenario.
    static func holdName(_ index: Int) -> String { "squall-hold-\(index)" }

    /// A hold for each progress-triggered event: the proxy stops carrying the request's bytes to the server at the
    /// event's position, until the event has played (`played` removes the rule, which releases them). So a
    /// server restart, a kill or a network switch at 50 % lands once exactly 50 % was forwarded to the server,
    /// however loaded the machine, instead of wherever the upload got while the run noticed.
    static func holds(for events: [ScenarioEvent]) throws -> [FaultRule] {
        try events.enumerated().compactMap { index, event in
            guard case .progress(let position, let asset, let announcement) = event.trigger,
                EventScheduler.holdsTheUpload(event)
            else { return nil }
            var match = FaultMatch()
            if let asset { match.header = HeaderMatch(name: "X-Filename", value: Glob(asset)) }
            return try FaultRule(
                name: holdName(index), match: match, trigger: .atOffset(position, announcement: announcement),
                action: .stall(duration: nil, thenClose: false), direction: .upstream, times: 1, optional: true)
        }
    }

    /// The reference server's progress interval, when it reports every one (no limit, no spacing): what a
    /// `restart-server` waits to see stored (`EventScheduler.storedStep`).
    var storedStep: Int64? {
        let spec = scenario.server
        guard server != nil, spec.progressInterval > 0, spec.progressLimit == nil, spec.progressSpacing == .zero
        else { return nil }
        return spec.progressInterval
    }

    /// What the scheduler learns of the world from `transcript` so far and the client.
    func facts(_ transcript: Transcript) -> RunFacts {
        RunFacts(progress: progress, transcript: transcript, client: client)
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

/// The run's answers to `EventScheduler`: its holds and the uploads' progress read from the proxy's transcript, the
/// client's journal and jobs from the client.
struct RunFacts: EventFacts {
    let progress: UploadProgressIndex
    let transcript: Transcript
    let client: ScenarioClient

    func firing(ofHold index: Int) -> UploadProgressIndex.Firing? {
        progress.firing(of: ScenarioRun.holdName(index), in: transcript)
    }

    func reached(_ event: ScenarioEvent) -> Bool { progress.reached(event, in: transcript) }

    func hasRecorded(uploadResource path: String) -> Bool { client.hasRecorded(uploadResource: path) }

    func acknowledged(after firing: UploadProgressIndex.Firing) -> Int64 {
        progress.acknowledged(after: firing, in: transcript)
    }

    func terminatedAtJob(_ count: Int) -> Bool { client.terminatedAtJob(count) != nil }
}
