import FaultEngine
import ResumableUpload
import Scenario
import Testing

@testable import Harness

/// The run's event decisions on a manual clock: every step is given `now` (the proxy's clock, here 10 s when the
/// client's first session started, a 30 s timeout ending at 40 s) and the world as plain values (`Facts`).
@Suite struct EventSchedulerTests {
    static let origin: Duration = .seconds(10)
    static let deadline: Duration = .seconds(40)
    static let microsecond: Duration = .microseconds(1)

    /// The world as a test states it.
    struct Facts: EventFacts {
        var firings: [Int: UploadProgressIndex.Firing] = [:]
        var reachedPositions = false
        var recorded: Set<String> = []
        var acknowledged: Int64 = 0
        var terminatedAtJobs: Set<Int> = []

        func firing(ofHold index: Int) -> UploadProgressIndex.Firing? { firings[index] }
        func reached(_ event: ScenarioEvent) -> Bool { reachedPositions }
        func hasRecorded(uploadResource path: String) -> Bool { recorded.contains(path) }
        func acknowledged(after firing: UploadProgressIndex.Firing) -> Int64 { acknowledged }
        func terminatedAtJob(_ count: Int) -> Bool { terminatedAtJobs.contains(count) }
    }

    static func scheduler(_ events: [ScenarioEvent], storedStep: Int64? = nil) -> EventScheduler {
        EventScheduler(
            events: events, origin: origin, deadline: deadline, timeout: deadline - origin, storedStep: storedStep)
    }

    static func at(_ delay: Duration, _ action: EventAction) -> ScenarioEvent {
        ScenarioEvent(action: action, trigger: .time(delay))
    }

    static func half(_ action: EventAction, within wait: Duration = Announcement.defaultWait) -> ScenarioEvent {
        ScenarioEvent(
            action: action,
            trigger: .progress(
                .fraction(numerator: 50, denominator: 100), asset: nil, announcement: .awaited(within: wait)))
    }

    /// The hold of an event fired at `time`, in a request whose 104 had announced `announced` (nil: none).
    static func firing(
        at time: Duration, announced: String? = nil, offset: Int64 = 500_000, version: Int = 8
    ) -> UploadProgressIndex.Firing {
        UploadProgressIndex.Firing(
            announced: announced, time: time, connection: 1, exchange: 1, offset: offset,
            version: InteropVersion(rawValue: version))
    }

    /// A time trigger counts from the origin: due at its time, and not one microsecond before (the control), when
    /// the run waits for exactly that time instead.
    @Test(arguments: [false, true])
    func aTimedEventIsDueAtItsTimeAndNotAMicrosecondBefore(early: Bool) {
        var scheduler = Self.scheduler([Self.at(.milliseconds(100), .switchNetwork)])
        let due = Self.origin + .milliseconds(100)
        let now = early ? due - Self.microsecond : due
        let step = scheduler.next(now: now, settled: false, facts: Facts())
        if early {
            #expect(step == .wait(until: due, wakesOnSettling: true))
            #expect(scheduler.pending == [0])
        } else {
            #expect(step == .play(0))
            #expect(scheduler.pending.isEmpty)
            // Everything played: the run waits for the client to settle, then ends with nothing unplayed.
            #expect(
                scheduler.next(now: now, settled: false, facts: Facts())
                    == .wait(until: Self.deadline, wakesOnSettling: true))
            #expect(
                scheduler.next(now: now, settled: true, facts: Facts())
                    == .end(
                        unplayed: [], reason: "the client settled at 100 ms and the run times out at 30 s",
                        timedOut: false))
        }
    }

    /// One pass plays every due event in file order; the wait is for the earliest of the rest.
    @Test func aPassPlaysTheDueEventsInOrderThenWaitsForTheNextTime() {
        let events = [
            Self.at(.seconds(2), .expireTokens), Self.at(.seconds(1), .switchNetwork),
            Self.at(.seconds(5), .expireChangeToken),
        ]
        var scheduler = Self.scheduler(events)
        let now = Self.origin + .seconds(3)
        #expect(scheduler.next(now: now, settled: false, facts: Facts()) == .play(0))
        #expect(scheduler.next(now: now, settled: false, facts: Facts()) == .play(1))
        #expect(
            scheduler.next(now: now, settled: true, facts: Facts())
                == .wait(until: Self.origin + .seconds(5), wakesOnSettling: false))
    }

    /// A held event is due once its hold fired (an event that stops the client, when no 104 had announced the
    /// upload to it); not before, when the run waits for the deadline, woken sooner by the hold.
    @Test(arguments: [false, true])
    func aHeldEventIsDueOnceItsHoldFired(fired: Bool) {
        var scheduler = Self.scheduler([Self.half(.killClient)])
        let now = Self.origin + .seconds(1)
        let facts = Facts(firings: fired ? [0: Self.firing(at: now)] : [:])
        #expect(scheduler.heldEventDue(now: now, facts: facts) == fired)
        #expect(
            scheduler.next(now: now, settled: false, facts: facts)
                == (fired ? .play(0) : .wait(until: Self.deadline, wakesOnSettling: true)))
    }

    /// A kill held at a creation whose 104 announced the upload waits for the client to journal it, at most its
    /// announcement wait (here 2 s) after the hold fired: the wait's bound. The control: one microsecond before the
    /// bound, with the upload not journaled, the kill is not due, and the run waits for exactly the bound.
    @Test(arguments: [
        (after: Duration.zero, journaled: false, due: false),
        (after: .seconds(2) - .microseconds(1), journaled: false, due: false),
        (after: .seconds(2), journaled: false, due: true),
        (after: .zero, journaled: true, due: true),
    ])
    func aHeldKillWaitsForTheJournalUpToTheAnnouncementWait(after: Duration, journaled: Bool, due: Bool) {
        var scheduler = Self.scheduler([Self.half(.killClient, within: .seconds(2))])
        let fired = Self.origin + .seconds(1)
        let facts = Facts(
            firings: [0: Self.firing(at: fired, announced: "/upload/7")], recorded: journaled ? ["/upload/7"] : [])
        let now = fired + after
        #expect(scheduler.nextRecordingBound(facts: facts) == fired + .seconds(2))
        #expect(scheduler.heldEventDue(now: now, facts: facts) == due)
        #expect(
            scheduler.next(now: now, settled: false, facts: facts)
                == (due ? .play(0) : .wait(until: fired + .seconds(2), wakesOnSettling: true)))
    }

    /// A held `restart-server` of a server reporting every 64 KiB waits until it reported more than the position
    /// less one interval; without that step (progress not reported every interval), or in a version sending no
    /// progress, it is due when its hold fires.
    @Test(arguments: [
        (step: Int64?.some(65_536), version: 8, acknowledged: Int64(434_464), due: false),
        (step: 65_536, version: 8, acknowledged: 434_465, due: true),
        (step: nil, version: 8, acknowledged: 0, due: true),
        (step: 65_536, version: 3, acknowledged: 0, due: true),
    ])
    func aHeldRestartWaitsForTheServerToHaveStored(step: Int64?, version: Int, acknowledged: Int64, due: Bool) {
        var scheduler = Self.scheduler([Self.half(.restartServer)], storedStep: step)
        let now = Self.origin + .seconds(1)
        let facts = Facts(
            firings: [0: Self.firing(at: now, offset: 500_000, version: version)], acknowledged: acknowledged)
        #expect(scheduler.isDue(0, now: now, facts: facts) == due)
        #expect((scheduler.next(now: now, settled: false, facts: facts) == .play(0)) == due)
    }

    /// `network-up` at 1 s waits for the `network-down` before it (at a progress point) to have played, whatever
    /// its time says: not due, and no time to wait for, until the hold fires; then both play in one pass.
    @Test func anUndoWaitsForWhatItUndoes() {
        var scheduler = Self.scheduler([Self.half(.networkDown), Self.at(.seconds(1), .networkUp)])
        let now = Self.origin + .seconds(2)
        #expect(scheduler.waitsForWhatItUndoes(1))
        #expect(!scheduler.isDue(1, now: now, facts: Facts()))
        #expect(scheduler.nextTimeTrigger == nil)
        #expect(
            scheduler.next(now: now, settled: false, facts: Facts())
                == .wait(until: Self.deadline, wakesOnSettling: true))
        let facts = Facts(firings: [0: Self.firing(at: now)])
        #expect(scheduler.next(now: now, settled: false, facts: facts) == .play(0))
        #expect(!scheduler.waitsForWhatItUndoes(1))
        #expect(scheduler.next(now: now, settled: false, facts: facts) == .play(1))
    }

    /// A relaunch plays only once the client settled, after the pass.
    @Test func aRelaunchWaitsForTheClientToSettle() {
        var scheduler = Self.scheduler([Self.at(.seconds(1), .terminateClient), Self.at(.seconds(2), .relaunchClient)])
        let now = Self.origin + .seconds(3)
        #expect(scheduler.next(now: now, settled: false, facts: Facts()) == .play(0))
        #expect(
            scheduler.next(now: now, settled: false, facts: Facts())
                == .wait(until: Self.origin + .seconds(2), wakesOnSettling: true))
        #expect(scheduler.next(now: now, settled: true, facts: Facts()) == .relaunch(1))
        #expect(scheduler.pending.isEmpty)
    }

    /// An `at-jobs-created` event is due when the client was told `willTerminate` at that job.
    @Test(arguments: [false, true])
    func aJobsCreatedEventIsDueWhenTheClientTerminatedAtIt(terminated: Bool) {
        let scheduler = Self.scheduler([ScenarioEvent(action: .terminateClient, trigger: .jobsCreated(2))])
        let facts = Facts(terminatedAtJobs: terminated ? [2] : [1])
        #expect(scheduler.isDue(0, now: Self.origin, facts: facts) == terminated)
    }

    /// With the client settled, an event only a later time could wake (here after the deadline) never plays: the
    /// run ends, saying when the client settled. Busy, the run waits for the deadline, then ends timed out; one
    /// microsecond before it, it still waits.
    @Test func theEventsEndWhenTheClientSettledForGoodOrAtTheDeadline() {
        let events = [Self.half(.killClient), Self.at(.seconds(45), .switchNetwork)]
        var settled = Self.scheduler(events)
        #expect(
            settled.next(now: Self.origin + .seconds(5), settled: true, facts: Facts())
                == .end(
                    unplayed: [0, 1], reason: "the client settled at 5 s and the run times out at 30 s", timedOut: false
                ))
        #expect(settled.pending.isEmpty)
        var busy = Self.scheduler(events)
        #expect(
            busy.next(now: Self.deadline - Self.microsecond, settled: false, facts: Facts())
                == .wait(until: Self.deadline, wakesOnSettling: true))
        #expect(
            busy.next(now: Self.deadline, settled: false, facts: Facts())
                == .end(unplayed: [0, 1], reason: "the run timed out at 30 s before it played", timedOut: true))
    }

    /// A time trigger before the deadline can still wake a settled client: the run waits for it.
    @Test func aSettledClientWaitsForATimeBeforeTheDeadline() {
        var scheduler = Self.scheduler([Self.at(.seconds(20), .addAssets(AssetSpec(name: "late", size: 10)))])
        #expect(scheduler.canStillPlay)
        #expect(
            scheduler.next(now: Self.origin + .seconds(1), settled: true, facts: Facts())
                == .wait(until: Self.origin + .seconds(20), wakesOnSettling: false))
    }
}
