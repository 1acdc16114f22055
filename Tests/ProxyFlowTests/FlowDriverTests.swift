import FaultEngine
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// The order `FlowDriver` carries a flow out in, which `ProxyConnection`, the fuzz target and the tests share: events,
/// the server's lane, the client's lane, `.wrote` and its events; a cut that waits for the client's 104 writes the
/// client's lane in the same round and is carried out at the next tick.
@Suite struct FlowDriverTests {
    typealias Base = ConnectionFlowAnnouncementTests

    /// Legs that log each call, in order.
    struct LoggingLegs: FlowLegs {
        var now: Duration
        var log: [String] = []

        mutating func write(_ bytes: ArraySlice<UInt8>, to side: FlowSide) -> FlowWrite {
            log.append("write \(side)")
            return .done(bytes.count)
        }

        mutating func shutDown(_ side: FlowSide) -> FlowWrite {
            log.append("shut down \(side)")
            return .done(0)
        }

        mutating func mark(_ mark: CaptureMark) {
            log.append("mark \(mark.side) \(mark.kind)")
        }

        mutating func record(_ events: [TranscriptEvent]) {
            let faults = events.compactMap { event -> String? in
                if case .faultFired(let fault) = event.kind { fault.rule } else { nil }
            }
            log.append("record \(events.count)" + (faults.isEmpty ? "" : " fired \(faults.joined(separator: ","))"))
        }
    }

    /// A request forwarded (with a header rewritten: recorded once it is on the wire) and a response for the client:
    /// both lanes hold bytes.
    static func bothLanesQueued() throws -> (FlowDriver, BudgetCell) {
        let rewrite = try FaultRule.parse(
            #"{"name": "rw", "action": "rewrite-header", "direction": "upstream", "header": "X-A", "value": "b"}"#)
        let budget = BudgetCell(rules: [rewrite], seed: 1)
        var driver = FlowDriver(ConnectionFlowLifecycleTests.relaying(budget: budget))
        var legs = MemoryLegs()
        driver.feed(
            .received(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)[...], from: .client), budget: budget, legs: &legs)
        driver.feed(
            .received(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)[...], from: .upstream), budget: budget, legs: &legs)
        return (driver, budget)
    }

    @Test func aRoundRecordsEventsWritesTheServersLaneThenTheClientsThenReportsWhatWentOut() throws {
        var (driver, budget) = try Self.bothLanesQueued()
        var legs = LoggingLegs(now: .milliseconds(1))
        driver.writeLanes(limit: 1 << 16, budget: budget, legs: &legs)
        // The rewrite is recorded only after `.wrote`: in the second record, not the first.
        #expect(legs.log == ["record 4", "write upstream", "write client", "record 1 fired rw"])
        #expect(!driver.hasPending)
    }

    @Test func aBlockedLegStopsOnlyItsOwnLane() throws {
        var (driver, budget) = try Self.bothLanesQueued()
        var legs = MemoryLegs(now: .milliseconds(1))
        legs.writable = [.client]
        driver.writeLanes(limit: 1 << 16, budget: budget, legs: &legs)
        #expect(legs.written[.upstream] == [])
        #expect(String(decoding: legs.written[.client]!, as: UTF8.self) == "HTTP/1.1 204 No Content\r\n\r\n")
        // Control: the rewrite is not recorded while its head waits in the blocked lane.
        #expect(!legs.takeRecorded().contains { if case .faultFired = $0.kind { true } else { false } })
    }

    /// A creation at a version the upstream does not announce: its cut does not wait; the server's 104 is queued for
    /// the client before the driver reaches the cut.
    static func cutWithAnInterimQueued() throws -> (FlowDriver, BudgetCell) {
        var (flow, budget) = Base.flow([try Base.cut()], interop: [6, 7])
        _ = flow.handle(.received(Base.announcement[...], from: .upstream), at: .milliseconds(1), budget: budget)
        return (FlowDriver(flow), budget)
    }

    @Test(arguments: [true, false])
    func aCutReachedInTheServersLaneWritesTheClientsInterimsFirstAndEndsAtTheNextTick(clientWritable: Bool) throws {
        var (driver, budget) = try Self.cutWithAnInterimQueued()
        var legs = MemoryLegs(now: .milliseconds(2))
        legs.writable = clientWritable ? [.client, .upstream] : [.upstream]
        driver.writeLanes(limit: 1 << 16, budget: budget, legs: &legs)
        #expect(Base.forwardedBody(legs.written[.upstream]!) == Base.length / 2)
        // The RST waits: the round went on to the client's lane.
        #expect(!driver.hasPending)
        #expect(legs.written[.client]! == (clientWritable ? Base.announcement : []))
        // The tick after the round's poll: the cut goes once the 104 is written; with the client's leg blocked (the
        // control), it waits until `interimFlushLimit`.
        #expect(driver.tickDue(at: legs.now))
        driver.feed(.tick, budget: budget, legs: &legs)
        #expect((driver.nextAction() == .abort(waitForAcknowledgement: true)) == clientWritable)
        if !clientWritable {
            legs.now += ConnectionFlow.interimFlushLimit
            driver.feed(.tick, budget: budget, legs: &legs)
            #expect(driver.nextAction() == .abort(waitForAcknowledgement: true))
        }
        #expect(legs.marks.map(\.kind) == [.rst, .rst])
    }

    /// A final response read while the cut waits for the interim heads came after the cut's byte: none of it reaches
    /// the client, only the 104 queued before the cut, and the cut follows at the tick.
    @Test func aFinalResponseReadWhileTheCutWaitsNeverReachesTheClient() throws {
        var (driver, budget) = try Self.cutWithAnInterimQueued()
        var legs = MemoryLegs(now: .milliseconds(2))
        legs.writable = [.upstream]
        driver.writeLanes(limit: 1 << 16, budget: budget, legs: &legs)
        #expect(!driver.hasPending)
        let created = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"
        driver.feed(.received(Array(created.utf8)[...], from: .upstream), budget: budget, legs: &legs)
        legs.writable = [.client, .upstream]
        driver.writeLanes(limit: 1 << 16, budget: budget, legs: &legs)
        #expect(legs.written[.client]! == Base.announcement)
        driver.feed(.tick, budget: budget, legs: &legs)
        #expect(driver.nextAction() == .abort(waitForAcknowledgement: true))
    }
}
