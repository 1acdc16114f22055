import FaultEngine
import HTTPWire
import TestSupport
import Testing

/// A PATCH appending at `offset` of an upload, as the reference client sends it.
func patchHead(offset: Int64) -> RequestHead {
    RequestHead(method: .patch, target: "/uploads/1", fields: ["Upload-Offset": String(offset)])
}

/// Feeds a request body cut into `chunks` (byte counts) at upload offset `start`; returns the decisions with the
/// body byte (from the request body's start) each fired at.
func feedBody(
    _ engine: inout FaultReplay, connection: Int = 1, chunks: [Int], start: Int64, length: Int64?,
    time: Duration = .zero
) -> [(decision: FaultDecision, bodyByte: Int)] {
    var fired: [(FaultDecision, Int)] = []
    var forwarded = 0
    for count in chunks {
        let event = FaultEvent.requestBody(
            connection: connection, count: count, uploadOffset: start + Int64(forwarded), uploadLength: length,
            time: time)
        for decision in engine.handle(event) {
            fired.append((decision, forwarded + (decision.afterBytes ?? 0)))
        }
        forwarded += count
    }
    return fired
}

struct FaultEngineTests {
    private let mebibyte: Int64 = 1 << 20

    private func engine(_ rules: FaultRule..., seed: UInt64 = 1) -> FaultReplay {
        FaultReplay(rules: rules, seed: seed)
    }

    private func opened(_ engine: inout FaultReplay, _ id: Int, at time: Duration = .zero) -> [FaultDecision] {
        engine.handle(.connectionOpened(connection: id, nth: id, time: time))
    }

    @Test func fortyPercentOfEightMiBFiresAtTheExactByteUnderRandomSplits() throws {
        let rule = try FaultRule(
            name: "cut", match: FaultMatch(method: .patch),
            trigger: .atOffset(.fraction(numerator: 40, denominator: 100)),
            action: .reset)
        let body = [UInt8](repeating: 7, count: 256 * 1024)
        let expected = 3_355_443 - 3 * Int(mebibyte)
        #expect(expected == 209_715)
        for chunks in ByteSplits.randomSplittings(body, count: 200, maxChunk: 16384) {
            var engine = engine(rule)
            _ = opened(&engine, 1)
            _ = engine.handle(.requestHead(connection: 1, head: patchHead(offset: 3 * mebibyte), time: .zero))
            let fired = feedBody(&engine, chunks: chunks.map(\.count), start: 3 * mebibyte, length: 8 * mebibyte)
            #expect(fired.map(\.bodyByte) == [expected])
            #expect(fired.first?.decision.offset == 3_355_443)
            #expect(fired.first?.decision.action == .reset)
        }
    }

    @Test func anOffsetFiresAtTheSameByteUnderEverySplitOfASmallBody() throws {
        let rule = try FaultRule(name: "cut", trigger: .atOffset(.bytes(107)), action: .close)
        let size = 12
        for cuts in 0..<(1 << (size - 1)) {
            var chunks: [Int] = []
            var current = 1
            for bit in 0..<(size - 1) {
                if cuts & (1 << bit) != 0 {
                    chunks.append(current)
                    current = 0
                }
                current += 1
            }
            chunks.append(current)
            var engine = engine(rule)
            _ = opened(&engine, 1)
            _ = engine.handle(.requestHead(connection: 1, head: patchHead(offset: 100), time: .zero))
            let fired = feedBody(&engine, chunks: chunks, start: 100, length: nil)
            #expect(fired.map(\.bodyByte) == [7], "chunks \(chunks)")
        }
    }

    @Test func oneByteAtATimeAndEmptyChunksAndTheBodysEnd() throws {
        let rule = try FaultRule(
            name: "end", trigger: .atOffset(.fraction(numerator: 100, denominator: 100)), action: .reset)
        var engine = engine(rule)
        _ = opened(&engine, 1)
        _ = engine.handle(.requestHead(connection: 1, head: patchHead(offset: 0), time: .zero))
        let chunks = [0] + ByteSplits.oneByteAtATime([UInt8](repeating: 0, count: 10)).map(\.count) + [0]
        let fired = feedBody(&engine, chunks: chunks, start: 0, length: 10)
        #expect(fired.map(\.bodyByte) == [10])
        #expect(fired.first?.decision.afterBytes == 1)
    }

    @Test func aResumedAppendBeyondThePositionDoesNotFire() throws {
        let rule = try FaultRule(
            name: "cut", trigger: .atOffset(.fraction(numerator: 40, denominator: 100)), action: .reset)
        var engine = engine(rule)
        _ = opened(&engine, 1)
        _ = engine.handle(.requestHead(connection: 1, head: patchHead(offset: 5 * mebibyte), time: .zero))
        #expect(feedBody(&engine, chunks: [4096, 4096], start: 5 * mebibyte, length: 8 * mebibyte).isEmpty)
        #expect(engine.neverFired == ["cut"])
    }

    @Test func aPercentageWithoutALengthWaitsAndIsReportedNeverFired() throws {
        let rule = try FaultRule(
            name: "pct", trigger: .atOffset(.fraction(numerator: 50, denominator: 100)), action: .reset)
        var engine = engine(rule)
        _ = opened(&engine, 1)
        _ = engine.handle(.requestHead(connection: 1, head: patchHead(offset: 0), time: .zero))
        #expect(feedBody(&engine, chunks: [10, 10], start: 0, length: nil).isEmpty)
        #expect(engine.neverFired == ["pct"])
        #expect(feedBody(&engine, chunks: [10], start: 20, length: 40).map(\.bodyByte) == [0])
        #expect(engine.neverFired.isEmpty)
    }

    @Test func nthMatchingRequestCountsAcrossConnections() throws {
        let rule = try FaultRule(name: "second-patch", match: FaultMatch(method: .patch, nthRequest: 2), action: .reset)
        var engine = engine(rule)
        let heads = [
            RequestHead(method: .get, target: "/"), patchHead(offset: 0), RequestHead(method: .get, target: "/"),
        ]
        var firedAt: [Int] = []
        for (index, head) in (heads + [patchHead(offset: 10), patchHead(offset: 20)]).enumerated() {
            _ = opened(&engine, index + 1)
            if !engine.handle(.requestHead(connection: index + 1, head: head, time: .zero)).isEmpty {
                firedAt.append(index)
            }
        }
        #expect(firedAt == [3])
    }

    @Test func nthConnectionArmsPerConnectionRulesOnce() throws {
        let rule = try FaultRule(
            name: "slow-second", match: FaultMatch(nthConnection: 2),
            action: .latency(.milliseconds(100), jitter: .zero),
            direction: .downstream)
        var engine = engine(rule)
        #expect(opened(&engine, 1).isEmpty)
        let second = opened(&engine, 2)
        #expect(second.map(\.connection) == [2])
        #expect(second.first?.direction == .downstream)
        #expect(second.first?.afterBytes == nil)
        #expect(opened(&engine, 3).isEmpty)
        #expect(engine.handle(.requestHead(connection: 2, head: patchHead(offset: 0), time: .zero)).isEmpty)
    }

    @Test func timesCapTheFirings() throws {
        let rule = try FaultRule(name: "twice", match: FaultMatch(method: .patch), action: .close, times: 2)
        var engine = engine(rule)
        _ = opened(&engine, 1)
        let counts = (0..<5).map { _ in
            engine.handle(.requestHead(connection: 1, head: patchHead(offset: 0), time: .zero)).count
        }
        #expect(counts == [1, 1, 0, 0, 0])
        #expect(engine.firings(of: "twice") == 2)
    }

    @Test func neverFiredListsOnlyNonOptionalRules() throws {
        var engine = engine(
            try FaultRule(name: "needed", match: FaultMatch(method: .delete), action: .reset),
            try FaultRule(name: "maybe", match: FaultMatch(method: .delete), action: .reset, optional: true),
            try FaultRule(name: "hit", match: FaultMatch(method: .patch), action: .reset))
        #expect(engine.neverFired == ["needed", "hit"])
        _ = opened(&engine, 1)
        _ = engine.handle(.requestHead(connection: 1, head: patchHead(offset: 0), time: .zero))
        #expect(engine.neverFired == ["needed"])
        _ = engine.handle(.requestHead(connection: 1, head: RequestHead(method: .delete, target: "/u/1"), time: .zero))
        #expect(engine.neverFired.isEmpty)
    }

    @Test func delayedTriggersFireOnTheFirstEventOrTickPastTheirTime() throws {
        var engine = engine(try FaultRule(name: "later", trigger: .after(.seconds(2)), action: .reset))
        #expect(opened(&engine, 1, at: .seconds(1)).isEmpty)
        #expect(engine.tick(time: .milliseconds(2999)).isEmpty)
        let fired = engine.tick(time: .seconds(3))
        #expect(fired.map(\.time) == [.seconds(3)])
        #expect(engine.tick(time: .seconds(9)).isEmpty)
        _ = opened(&engine, 2, at: .seconds(10))
        _ = engine.handle(.connectionClosed(connection: 2, time: .seconds(11)))
        #expect(engine.tick(time: .seconds(20)).isEmpty)
    }

    @Test func windowsBoundMatchesAndCarryTheirEnd() throws {
        var engine = engine(
            try FaultRule(name: "down", trigger: .window(from: .seconds(2), until: .seconds(5)), action: .refuse))
        #expect(opened(&engine, 1, at: .seconds(1)).isEmpty)
        let refused = opened(&engine, 2, at: .seconds(2))
        #expect(refused.map(\.action) == [.refuse])
        #expect(refused.first?.expires == .seconds(5))
        #expect(opened(&engine, 3, at: .seconds(5)).isEmpty)
    }
}
