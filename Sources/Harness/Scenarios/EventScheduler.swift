import Scenario
import SquallCore

/// When a run's events play: the decisions of the event loop as a value, on one clock, the proxy's (the
/// transcript's, on which the holds fire). It reads no clock: every step is given `now`, and what it needs to know of
/// the world (`EventFacts`); `ScenarioRun` executes its steps.
///
/// ```
///  next(now, settled, facts) ─┬▶ play(i)      an event due, in file order (a pass goes on through the later ones)
///          ▲                  ├▶ relaunch(i)  after the pass: the first relaunch, once due and the client settled
///          │  executed, then  ├▶ wait(until)  the next time trigger, a held event's announcement bound, the deadline
///          └──── asked again ─┘               (sooner: a held event due, the client settling)
///                             └▶ end          the client settled with nothing left to wake it, or the deadline
/// ```
///
/// `at` counts from `origin`, when the client's first session started. An event that cannot play any more ends the
/// run's events with the reason (the oracle fails the scenario on it).
struct EventScheduler: Sendable {
    /// What the run does next.
    enum Step: Equatable, Sendable {
        /// Play the event at this index of the scenario now; then ask again (the pass goes on).
        case play(Int)
        /// End the settled client's session and start a new one: the relaunch at this index.
        case relaunch(Int)
        /// Wait until this time, or until a held event is due (`heldEventDue`), or, when `wakesOnSettling`, until
        /// the client settles (a client already settled would wake it at once, again and again).
        case wait(until: Duration, wakesOnSettling: Bool)
        /// Stop playing: the events at `unplayed` never will, for `reason`; `timedOut` when the deadline came with
        /// the client still busy.
        case end(unplayed: [Int], reason: String, timedOut: Bool)
    }

    let events: [ScenarioEvent]
    /// When the client's first session started: the origin of `at`.
    let origin: Duration
    /// When the run times out.
    let deadline: Duration
    /// The scenario's timeout, as the reasons say it.
    let timeout: Duration
    /// The reference server's progress interval, when it reports every one: what a held `restart-server` waits to
    /// see stored (see `heldEventIsDue`); nil otherwise.
    let storedStep: Int64?
    /// The indices of the events still to play, in order.
    private(set) var pending: [Int]
    /// The last event played in the pass under way; nil when the next step starts a pass.
    private var passedBy: Int?

    init(events: [ScenarioEvent], origin: Duration, deadline: Duration, timeout: Duration, storedStep: Int64?) {
        self.events = events
        self.origin = origin
        self.deadline = deadline
        self.timeout = timeout
        self.storedStep = storedStep
        self.pending = Array(events.indices)
    }

    /// The next step at `now`, with the client `settled` (no session running, or monitoring the library with nothing
    /// to do) or not. A played or relaunched event is taken out of `pending`; an `end` takes out the rest.
    mutating func next(now: Duration, settled: Bool, facts: some EventFacts) -> Step {
        // A pass plays, in order, the pending events that are due (a relaunch waits for the client to have stopped).
        if let index = pending.first(where: {
            $0 > (passedBy ?? -1) && !isRelaunch($0) && isDue($0, now: now, facts: facts)
        }) {
            pending.removeAll { $0 == index }
            passedBy = index
            return .play(index)
        }
        passedBy = nil
        // A relaunch waits for the session to stop; a session that has settled is ended for it.
        if let relaunch = pending.first(where: isRelaunch), isDue(relaunch, now: now, facts: facts), settled {
            pending.removeAll { $0 == relaunch }
            return .relaunch(relaunch)
        }
        if settled, !canStillPlay {
            let settledAt = Self.text(now - origin)
            return end(because: "the client settled at \(settledAt) and the run times out at \(Self.text(timeout))")
        }
        if now >= deadline {
            return end(because: "the run timed out at \(Self.text(timeout)) before it played", timedOut: !settled)
        }
        let until = [nextTimeTrigger, nextRecordingBound(facts: facts)].compactMap { $0 }.min() ?? deadline
        return .wait(until: min(until, deadline), wakesOnSettling: !settled)
    }

    /// Whether the pending event at `index` is due at `now`.
    func isDue(_ index: Int, now: Duration, facts: some EventFacts) -> Bool {
        let event = events[index]
        switch event.trigger {
        case .time(let delay): return now >= origin + delay && !waitsForWhatItUndoes(index)
        case .progress:
            return Self.holdsTheUpload(event) ? heldEventIsDue(index, now: now, facts: facts) : facts.reached(event)
        case .jobsCreated(let count): return facts.terminatedAtJob(count)
        }
    }

    /// When the earliest pending time trigger that is not waiting for what it undoes comes.
    var nextTimeTrigger: Duration? {
        pending.compactMap { index -> Duration? in
            guard case .time(let delay) = events[index].trigger, !waitsForWhatItUndoes(index) else { return nil }
            return origin + delay
        }.min()
    }

    /// `network-up` and `enable-extension` undo an earlier `network-down` or `disable-extension` of the file: while
    /// that one has not played (a progress point a loaded machine has not reached yet), the undo is not due,
    /// whatever its time says. Played first, it would undo nothing, and the network would then stay down.
    func waitsForWhatItUndoes(_ index: Int) -> Bool {
        let undone: EventAction
        switch events[index].action {
        case .networkUp: undone = .networkDown
        case .enableExtension: undone = .disableExtension
        default: return false
        }
        return pending.contains { $0 < index && events[$0].action == undone }
    }

    /// With the client settled, whether a pending event can still play: nothing more moves by itself, so only a
    /// time-triggered event before the deadline (which may wake the client and so reach a progress trigger).
    var canStillPlay: Bool {
        nextTimeTrigger.map { $0 < deadline } ?? false
    }

    private func isRelaunch(_ index: Int) -> Bool {
        events[index].action == .relaunchClient
    }

    /// Ends the run's events: every pending one never played, for `reason`.
    private mutating func end(because reason: String, timedOut: Bool = false) -> Step {
        defer { pending.removeAll() }
        return .end(unplayed: pending, reason: reason, timedOut: timedOut)
    }

    /// `71 ms`, `5 s`, `1.5 s`: a duration as the never-played reasons say it.
    static func text(_ duration: Duration) -> String {
        DurationText.spoken(duration)
    }
}
