import Scenario
import SquallCore
import Testing

@testable import Exploration

/// The schedule generator: deterministic, whole vocabulary, always a valid scenario; and the shrinker: smaller,
/// still valid.
struct ScheduleGeneratorTests {
    static func text(_ document: JSONValue) -> String {
        JSONText.document(document, keyOrder: ScheduleGenerator.keyOrder)
    }

    static func load(_ document: JSONValue) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.load(Array(text(document).utf8), file: "schedule.json")
    }

    @Test func theSameSeedGivesTheSameSchedulesAndAnotherSeedOthers() {
        let one = ScheduleGenerator(seed: 42)
        let again = ScheduleGenerator(seed: 42)
        let other = ScheduleGenerator(seed: 43)
        for index in 0..<50 {
            #expect(Self.text(one.schedule(index)) == Self.text(again.schedule(index)))
        }
        let differing = (0..<50).count { Self.text(one.schedule($0)) != Self.text(other.schedule($0)) }
        #expect(differing == 50)
        #expect(Set((0..<50).map { Self.text(one.schedule($0)) }).count == 50, "every schedule is its own")
    }

    /// The generator's stream is pinned: a change to it changes every campaign, so it must be deliberate.
    @Test func scheduleZeroOfSeedOneIsPinned() {
        let text = Self.text(ScheduleGenerator(seed: 1).schedule(0))
        #expect(text.hasPrefix("{\n  \"name\": \"explore-1-0\",\n"), "\(text)")
        #expect(text.count > 300)
    }

    @Test func everyScheduleLoadsAsAScenario() throws {
        let generator = ScheduleGenerator(seed: 7)
        for index in 0..<500 {
            let loaded = Self.load(generator.schedule(index))
            if case .failure(let errors) = loaded {
                Issue.record("schedule \(index): \(errors)\n\(Self.text(generator.schedule(index)))")
                return
            }
        }
    }

    /// Over a campaign every action and every event of the vocabulary is drawn.
    @Test func aCampaignDrawsTheWholeVocabulary() {
        let generator = ScheduleGenerator(seed: 3)
        var actions = Set<String>()
        var events = Set<String>()
        var interops = Set<String>()
        var triggers = Set<String>()
        for index in 0..<400 {
            let schedule = generator.schedule(index)
            for fault in schedule["faults"]?.array ?? [] {
                if case .string(let action)? = fault["action"] { actions.insert(action) }
                if case .object(let trigger)? = fault["trigger"] { triggers.formUnion(trigger.keys) }
                if case .object(let match)? = fault["match"] { triggers.formUnion(match.keys) }
                if fault["probability"] != nil { triggers.insert("probability") }
            }
            for event in schedule["events"]?.array ?? [] {
                if case .string(let name)? = event["event"] { events.insert(name) }
            }
            interops.insert("\(schedule["client"]?["interop"].map { "\($0)" } ?? "")")
        }
        #expect(
            actions == [
                "reset", "close", "stall", "latency", "bandwidth", "slice", "limit", "refuse", "strip-interim",
                "drop-response", "delay-response", "truncate-response", "respond", "expire-auth",
            ])
        #expect(
            events == [
                "terminate-client", "relaunch-client", "kill-client", "force-quit", "network-down", "network-up",
                "switch-network", "add-assets", "restart-server", "expire-tokens",
            ])
        #expect(interops.count == 7)
        #expect(
            triggers.isSuperset(of: [
                "at-offset", "after", "after-response-bytes", "window", "nth-request", "nth-connection", "method",
                "probability",
            ]))
    }

    @Test func againstAnOutsideServerNoServerRestartOrTokenExpiryIsDrawn() {
        let generator = ScheduleGenerator(seed: 3, outsideServer: true)
        for index in 0..<300 {
            for event in generator.schedule(index)["events"]?.array ?? [] {
                #expect(event["event"] != .string("restart-server") && event["event"] != .string("expire-tokens"))
            }
        }
    }

    @Test func shardsSplitTheCampaignIntoDisjointPartsWhoseUnionIsTheWhole() {
        let count = 37
        var seen: [Int] = []
        for shard in 1...4 {
            seen += (0..<count).filter { $0 % 4 == shard - 1 }
        }
        #expect(seen.sorted() == Array(0..<count))
    }

    /// Plain uploads have no offsets to keep or appends to judge, nor a Location to know a copy by.
    @Test func theInvariantsFollowTheInteropVersion() {
        func expect(_ interop: JSONValue) -> Set<String> {
            let document = JSONValue.object(["client": .object(["interop": interop])])
            guard case .object(let expect) = ScheduleInvariants.expectations(for: document) else { return [] }
            return Set(expect.keys)
        }
        #expect(
            expect(.integer(8)) == [
                "acknowledged-at-most-once", "retry-limit-respected", "no-job-lost", "acknowledged-bytes-kept",
                "appends-at-server-offset", "no-avoidable-duplicates",
            ])
        #expect(expect(.string("none")) == ["acknowledged-at-most-once", "retry-limit-respected", "no-job-lost"])
    }

    /// A killed client is a child process with a fixed library: no asset is added while it may run.
    @Test func noAssetIsAddedInASchedulethatKillsTheClient() {
        let generator = ScheduleGenerator(seed: 3)
        for index in 0..<400 {
            let events = generator.schedule(index)["events"]?.array ?? []
            let kills = events.contains {
                $0["event"] == .string("kill-client") || $0["event"] == .string("force-quit")
            }
            #expect(!kills || !events.contains { $0["event"] == .string("add-assets") })
        }
    }

    @Test func everyShrinkCandidateIsSmallerAndLoads() throws {
        let generator = ScheduleGenerator(seed: 11)
        for index in 0..<60 {
            let schedule = generator.schedule(index)
            let size = ScheduleShrinker.size(schedule)
            for candidate in ScheduleShrinker.candidates(schedule) {
                let smaller = ScheduleShrinker.size(candidate)
                #expect(smaller.faults <= size.faults && smaller.events <= size.events)
                #expect(Self.text(candidate) != Self.text(schedule), "a candidate that changes nothing")
                if case .failure(let errors) = Self.load(candidate) {
                    Issue.record("candidate of \(index): \(errors)\n\(Self.text(candidate))")
                    return
                }
            }
        }
    }

    /// A stop and its relaunch go together: dropping the stop drops the relaunch.
    @Test func aStopIsDroppedWithItsRelaunch() {
        let document = JSONValue.object([
            "name": .string("s"), "faults": .array([.object(["name": .string("f1"), "action": .string("reset")])]),
            "events": .array([
                .object(["event": .string("terminate-client"), "at": .string("100ms")]),
                .object(["event": .string("relaunch-client"), "at": .string("300ms")]),
            ]),
        ])
        let candidates = ScheduleShrinker.candidates(document)
        #expect(candidates.contains { $0["events"] == nil })
        #expect(!candidates.contains { $0["events"]?.array?.count == 1 })
        #expect(ScheduleShrinker.halved(.string("300ms")) == .string("150ms"))
        #expect(ScheduleShrinker.halved(.string("40%")) == .string("20%"))
        #expect(ScheduleShrinker.halved(.string("1%")) == nil)
    }

    /// A timed event is tried pinned to the middle of an upload (a stop with its relaunch at once); a network
    /// outage is not (its `network-up` keeps its time, and could come first).
    @Test func aTimedEventIsPinnedToAnUploadPoint() {
        let document = JSONValue.object([
            "name": .string("s"),
            "events": .array([
                .object(["event": .string("restart-server"), "at": .string("250ms")]),
                .object(["event": .string("kill-client"), "at": .string("100ms")]),
                .object(["event": .string("relaunch-client"), "at": .string("300ms")]),
                .object(["event": .string("network-down"), "at": .string("50ms")]),
                .object(["event": .string("network-up"), "at": .string("75ms")]),
            ]),
        ])
        let pinned = ScheduleShrinker.candidates(document).compactMap { $0["events"]?.array }
            .filter { $0.count == 5 && $0 != document["events"]?.array }
            .filter { $0.contains { $0["at-progress"] == .string("50%") } }
        #expect(pinned.count == 2)
        #expect(
            pinned.contains { $0[0] == .object(["event": .string("restart-server"), "at-progress": .string("50%")]) })
        #expect(
            pinned.contains {
                $0[1] == .object(["event": .string("kill-client"), "at-progress": .string("50%")])
                    && $0[2] == .object(["event": .string("relaunch-client"), "at": .string("0ms")])
            })
        #expect(!pinned.contains { $0[3]["at-progress"] != nil })
    }
}

extension JSONValue {
    fileprivate var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

extension ScheduleGeneratorTests {
    /// The kill campaign: even schedules kill the server, odd ones the client (then relaunch it), once each.
    @Test func theKillCampaignKillsTheServerThenTheClientOnceEach() {
        let generator = ScheduleGenerator(seed: 4, campaign: .kills)
        for index in 0..<40 {
            let schedule = generator.schedule(index)
            let events = (schedule["events"]?.array ?? []).compactMap { event -> String? in
                if case .string(let name)? = event["event"] { return name }
                return nil
            }
            if index % 2 == 0 {
                #expect(events == ["restart-server"], "\(index): \(events)")
            } else {
                #expect(events.count == 2 && events[1] == "relaunch-client", "\(index): \(events)")
                #expect(events[0] == "kill-client" || events[0] == "force-quit", "\(index): \(events)")
            }
            #expect((try? Self.load(schedule).get()) != nil, "schedule \(index) loads")
        }
        let sized = ScheduleGenerator(seed: 4, assetSize: 262_144)
        for index in 0..<20 {
            for asset in sized.schedule(index)["assets"]?.array ?? [] {
                #expect(asset["size"] == .integer(262_144))
            }
        }
    }
}
