import FaultEngine
import HTTPWire
import TestSupport
import Testing

/// The split of the fault engine: each connection's `ConnectionFaults` keeps its arms and asks one shared
/// `FaultBudget` (here a `BudgetCell`, counting the asks) only at the moments that need sharing.
struct ConnectionFaultsTests {
    static func rule(_ json: String) throws -> FaultRule {
        try FaultRule.parse(json)
    }

    static func get(_ path: String) -> RequestHead {
        RequestHead(method: .get, target: path, fields: ["Host": "h"])
    }

    /// A delayed trigger's due time comes from the connection's own arms: neither `nextDue` nor a tick before it
    /// takes the budget.
    @Test func aDueTimeIsComputedWithoutTheBudget() throws {
        let budget = BudgetCell(rules: [
            try Self.rule(#"{"name": "later", "trigger": {"after": "2s"}, "action": "reset"}"#)
        ])
        var faults = ConnectionFaults(connection: 1)
        #expect(
            faults.outcome(.connectionOpened(connection: 1, nth: 1, time: .seconds(1)), budget: budget).decisions
                .isEmpty)
        let asks = budget.asks
        #expect(faults.nextDue == .seconds(3))
        #expect(faults.outcome(.due(connection: 1, time: .milliseconds(2999)), budget: budget).decisions.isEmpty)
        #expect(
            faults.outcome(.responseBody(connection: 1, count: 100, time: .seconds(2)), budget: budget).decisions
                .isEmpty)
        #expect(budget.asks == asks)
        let fired = faults.outcome(.due(connection: 1, time: .seconds(3)), budget: budget).decisions
        #expect(fired.map(\.rule) == ["later"])
        #expect(budget.asks == asks + 1)
        #expect(faults.nextDue == nil)
    }

    /// `times` and the nth-request count are the budget's: two connections use them up together.
    @Test func twoConnectionsShareTimesAndNthCountsThroughOneBudget() throws {
        let once = try Self.rule(
            #"{"name": "once", "match": {"path": "/once"}, "action": "respond", "status": 503, "times": 1}"#)
        let second = try Self.rule(
            #"{"name": "second", "match": {"path": "/nth", "nth-request": 2}, "action": "respond", "status": 500}"#)
        let budget = BudgetCell(rules: [once, second])
        var first = ConnectionFaults(connection: 1)
        var other = ConnectionFaults(connection: 2)
        _ = first.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: budget)
        _ = other.outcome(.connectionOpened(connection: 2, nth: 2, time: .zero), budget: budget)
        func request(_ faults: inout ConnectionFaults, _ path: String) -> [String] {
            faults.outcome(
                .requestHead(connection: faults.connection, head: Self.get(path), time: .zero), budget: budget
            )
            .decisions.map(\.rule)
        }
        #expect(request(&first, "/once") == ["once"])
        #expect(request(&other, "/once") == [])
        #expect(request(&first, "/nth") == [])
        #expect(request(&other, "/nth") == ["second"])
        #expect(request(&first, "/nth") == [])
        #expect(budget.budget.firings(of: "once") == 1)
        #expect(budget.budget.statuses.map(\.state) == [.exhausted, .fired])
    }

    /// A rule change reaches a live connection's arms when it catches up: a removed rule's arm goes, a new
    /// per-connection rule fires at the change's time, and a connection opened after the change holds it already.
    @Test func aRuleChangeReachesALiveConnectionsArms() throws {
        let later = try Self.rule(#"{"name": "later", "trigger": {"after": "5s"}, "action": "reset"}"#)
        let cut = try Self.rule(#"{"name": "cut", "action": "close"}"#)
        let budget = BudgetCell(rules: [later])
        var live = ConnectionFaults(connection: 1)
        _ = live.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: budget)
        #expect(live.nextDue == .seconds(5))
        _ = budget.budget.replaceRules(with: [cut], time: .seconds(2))
        #expect(live.version < budget.version)
        let fired = live.catchUp(budget: budget)
        #expect(fired.map(\.rule) == ["cut"])
        #expect(fired.map(\.time) == [.seconds(2)])
        #expect(live.nextDue == nil)
        #expect(live.ruleNames == ["cut"])
        #expect(live.catchUp(budget: budget).isEmpty)
        var fresh = ConnectionFaults(connection: 2)
        _ = fresh.outcome(.connectionOpened(connection: 2, nth: 2, time: .seconds(3)), budget: budget)
        #expect(fresh.catchUp(budget: budget).isEmpty)
        #expect(budget.budget.firings(of: "cut") == 2)
    }

    /// A replacement keeps a live connection's arm of a rule that stays (its delay counted from when it armed) and
    /// drops the arm of a rule removed, wherever the rules moved in the list.
    @Test func aReplacementKeepsTheArmsOfRulesThatStayAndDropsTheOthers() throws {
        let gone = try Self.rule(#"{"name": "gone", "trigger": {"after": "5s"}, "action": "reset"}"#)
        let later = try Self.rule(#"{"name": "later", "trigger": {"after": "5s"}, "action": "close"}"#)
        let other = try Self.rule(#"{"name": "other", "match": {"path": "/x"}, "action": "respond", "status": 503}"#)
        let budget = BudgetCell(rules: [gone])
        var live = ConnectionFaults(connection: 1)
        _ = live.outcome(.connectionOpened(connection: 1, nth: 1, time: .zero), budget: budget)
        _ = budget.budget.replaceRules(with: [gone, later], time: .seconds(2))
        #expect(live.catchUp(budget: budget).isEmpty)
        #expect(live.nextDue == .seconds(5))
        _ = budget.budget.replaceRules(with: [later, other], time: .seconds(3))
        #expect(live.catchUp(budget: budget).isEmpty)
        #expect(live.nextDue == .seconds(7))
        #expect(live.outcome(.due(connection: 1, time: .seconds(7)), budget: budget).decisions.map(\.rule) == ["later"])
    }

    /// The same seed and the same events give the same decisions across connections (one draw per match, in the
    /// order the connections reach the budget); another seed gives others.
    @Test func drawsAcrossConnectionsAreDeterministic() throws {
        let coin = try Self.rule(#"{"name": "coin", "probability": 0.5, "action": "respond", "status": 503}"#)
        func run(seed: UInt64) -> [Int] {
            var replay = FaultReplay(rules: [coin], seed: seed)
            for id in 1...4 { _ = replay.handle(.connectionOpened(connection: id, nth: id, time: .zero)) }
            var fired: [Int] = []
            for round in 0..<8 {
                for id in 1...4 {
                    let head = FaultEvent.requestHead(connection: id, head: Self.get("/\(round)"), time: .zero)
                    fired += replay.handle(head).map(\.connection)
                }
            }
            return fired
        }
        let first = run(seed: 5)
        #expect(!first.isEmpty && first.count < 32)
        #expect(run(seed: 5) == first)
        #expect(run(seed: 6) != first)
    }
}
