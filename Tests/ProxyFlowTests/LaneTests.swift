import FaultEngine
import Testing

@testable import ProxyFlow

/// The lane's scheduling, with virtual times: release order, latency, pacing, pieces, holds and cuts.
@Suite struct LaneTests {
    /// Drains the lane at successive due times; returns (time, item) pairs.
    static func drain(_ lane: inout Lane, from start: Duration = .zero, limit: Int = 100_000) -> [(Duration, FlowItem)]
    {
        var now = start
        var out: [(Duration, FlowItem)] = []
        while out.count < limit {
            if let item = lane.next(at: now) {
                out.append((now, item))
                if case .bytes(let bytes) = item { lane.consume(bytes.count) } else { lane.pop() }
                continue
            }
            guard let release = lane.nextRelease(after: now) else { break }
            now = max(now, release)
        }
        return out
    }

    static func effect(_ action: FaultAction, rule: String = "r", at now: Duration = .zero, expires: Duration? = nil)
        -> LaneEffect
    {
        guard case .shape(let shape, _) = action.wire else { preconditionFailure("\(action) shapes no lane") }
        return LaneEffect(shape, rule: rule, at: now, expires: expires)
    }

    static func byteCount(_ items: [(Duration, FlowItem)]) -> Int {
        items.reduce(0) { sum, pair in
            if case .bytes(let bytes) = pair.1 { return sum + bytes.count }
            return sum
        }
    }

    @Test func withoutEffectsBytesLeaveAtOnceInOrder() {
        var lane = Lane(source: .client, seed: 1)
        lane.push([1, 2, 3][...], at: .milliseconds(5))
        lane.push([4][...], at: .milliseconds(5))
        let items = Self.drain(&lane, from: .milliseconds(5))
        #expect(items.map(\.1) == [.bytes([1, 2, 3][...]), .bytes([4][...])])
        #expect(items.allSatisfy { $0.0 == .milliseconds(5) })
        #expect(lane.isEmpty && lane.queuedBytes == 0)
    }

    @Test func latencyDelaysEachChunkAndKeepsOrderUnderJitter() {
        var lane = Lane(source: .client, seed: 9)
        lane.add(Self.effect(.latency(.milliseconds(100), jitter: .milliseconds(50))), at: .zero)
        for index in 0..<50 { lane.push([UInt8(index)][...], at: .milliseconds(Int64(index))) }
        let items = Self.drain(&lane)
        #expect(items.map(\.1) == (0..<50).map { FlowItem.bytes([UInt8($0)][...]) })
        #expect(zip(items, items.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(items[0].0 >= .milliseconds(50) && items[0].0 <= .milliseconds(150))
    }

    @Test func jitterDrawsRepeatWithTheSeed() {
        func times(seed: UInt64) -> [Duration] {
            var lane = Lane(source: .client, seed: seed)
            lane.add(Self.effect(.latency(.milliseconds(10), jitter: .milliseconds(5))), at: .zero)
            for index in 0..<20 { lane.push([0][...], at: .milliseconds(Int64(index * 100))) }
            return Self.drain(&lane).map(\.0)
        }
        #expect(times(seed: 3) == times(seed: 3))
        #expect(times(seed: 3) != times(seed: 4))
    }

    @Test(arguments: [Int64(10 * 1024), 1 << 20, 100 << 20])
    func bandwidthPacesToTheRate(rate: Int64) {
        var lane = Lane(source: .upstream, seed: 1)
        lane.add(Self.effect(.bandwidth(bytesPerSecond: rate)), at: .zero)
        let total = Int(min(rate * 2, 8 << 20))
        var pushed = 0
        while pushed < total {
            let size = min(32 * 1024, total - pushed)
            lane.push(ArraySlice(repeating: 0, count: size), at: .zero)
            pushed += size
        }
        let items = Self.drain(&lane)
        #expect(Self.byteCount(items) == total)
        let last = items.last!
        guard case .bytes(let lastPiece) = last.1 else {
            Issue.record("no bytes")
            return
        }
        // The last piece leaves once everything before it has had its time at the rate.
        let expected = Double(total - lastPiece.count) / Double(rate)
        let measured = Double(last.0 / .microseconds(1)) / 1_000_000
        #expect(abs(measured - expected) <= expected * 0.01 + 0.001)
    }

    @Test func sliceCutsIntoPiecesWithinTheVariation() {
        var lane = Lane(source: .client, seed: 5)
        lane.add(Self.effect(.slice(size: 100, variation: 20, delay: .milliseconds(1))), at: .zero)
        lane.push(ArraySlice(repeating: 7, count: 10_000), at: .zero)
        let items = Self.drain(&lane)
        let sizes = items.compactMap { pair -> Int? in if case .bytes(let bytes) = pair.1 { bytes.count } else { nil } }
        #expect(sizes.reduce(0, +) == 10_000)
        #expect(sizes.dropLast().allSatisfy { (80...120).contains($0) })
        #expect(zip(items, items.dropFirst()).allSatisfy { $1.0 - $0.0 == .milliseconds(1) })
    }

    @Test func stallHoldsUntilItsEndThenReleases() {
        var lane = Lane(source: .client, seed: 1)
        lane.add(Self.effect(.stall(duration: .milliseconds(300), thenClose: false)), at: .zero)
        lane.push([1][...], at: .milliseconds(10))
        #expect(lane.next(at: .milliseconds(299)) == nil)
        #expect(lane.nextRelease(after: .milliseconds(10)) == .milliseconds(300))
        #expect(lane.next(at: .milliseconds(300)) == .bytes([1][...]))
    }

    @Test func stallForeverHoldsUntilTheRuleGoes() {
        var lane = Lane(source: .client, seed: 1)
        lane.add(Self.effect(.stall(duration: nil, thenClose: false), rule: "hole"), at: .zero)
        lane.push([1][...], at: .zero)
        #expect(lane.next(at: .seconds(3600)) == nil)
        #expect(lane.nextRelease(after: .zero) == nil)
        lane.keepEffects(of: ["other"])
        #expect(lane.next(at: .seconds(3600)) == .bytes([1][...]))
    }

    @Test func closingStallDropsBytesThenCloses() {
        var lane = Lane(source: .client, seed: 1)
        lane.add(Self.effect(.stall(duration: .milliseconds(50), thenClose: true)), at: .zero)
        lane.push([1, 2, 3][...], at: .milliseconds(1))
        let items = Self.drain(&lane)
        #expect(items.map(\.1) == [.close])
        #expect(items.first?.0 == .milliseconds(50))
        #expect(lane.droppedBytes == 3)
    }

    @Test func limitForwardsExactlyThatManyBytesThenCloses() {
        var lane = Lane(source: .client, seed: 1)
        lane.add(Self.effect(.limit(bytes: 5)), at: .zero)
        lane.push([1, 2, 3][...], at: .zero)
        lane.push([4, 5, 6, 7][...], at: .zero)
        lane.push([8][...], at: .zero)
        let items = Self.drain(&lane)
        #expect(items.map(\.1) == [.bytes([1, 2, 3][...]), .bytes([4, 5][...]), .close])
        #expect(lane.droppedBytes == 3)
    }

    @Test func slowCloseDelaysTheEndOfStream() {
        var lane = Lane(source: .upstream, seed: 1)
        lane.add(Self.effect(.slowClose(delay: .milliseconds(80))), at: .zero)
        lane.push([1][...], at: .milliseconds(10))
        lane.pushMarker(.endStream, at: .milliseconds(10))
        let items = Self.drain(&lane, from: .milliseconds(10))
        #expect(items.map(\.0) == [.milliseconds(10), .milliseconds(90)])
        #expect(items.last?.1 == .endStream)
    }

    @Test func windowedEffectsStopAtTheirEnd() {
        var lane = Lane(source: .client, seed: 1)
        lane.add(Self.effect(.latency(.seconds(1), jitter: .zero), expires: .milliseconds(100)), at: .zero)
        lane.push([1][...], at: .milliseconds(200))
        #expect(lane.next(at: .milliseconds(200)) == .bytes([1][...]))
    }

    @Test func partialWritesLeaveTheRestAtTheHead() {
        var lane = Lane(source: .client, seed: 1)
        lane.push([1, 2, 3, 4][...], at: .zero)
        lane.consume(3)
        #expect(lane.queuedBytes == 1)
        #expect(lane.next(at: .zero) == .bytes([4][...]))
    }

    @Test func nextBytesJoinsDueItemsUpToAMarker() {
        var lane = Lane(source: .upstream, seed: 1)
        lane.push([1, 2][...], at: .zero)
        lane.push([3][...], at: .zero)
        lane.pushMarker(.endStream, at: .zero)
        lane.push([4][...], at: .zero)
        #expect(lane.nextBytes(at: .zero, limit: 1024) == [[1, 2][...], [3][...]])
        lane.consume(3)
        #expect(lane.queuedBytes == 1 && lane.carriedOut == 2)
        #expect(lane.nextBytes(at: .zero, limit: 1024).isEmpty)
        #expect(lane.next(at: .zero) == .endStream)
        lane.pop()
        #expect(lane.nextBytes(at: .zero, limit: 1024) == [[4][...]])
    }

    @Test func nextBytesStopsAtTheLimitAndAtItemsNotDue() {
        var lane = Lane(source: .upstream, seed: 1)
        lane.push([1, 2][...], at: .zero)
        lane.push([3, 4][...], at: .zero)
        lane.push([5][...], at: .zero)
        #expect(lane.nextBytes(at: .zero, limit: 4) == [[1, 2][...], [3, 4][...]])
        lane.add(Self.effect(.latency(.milliseconds(10), jitter: .zero)), at: .zero)
        lane.push([6][...], at: .zero)
        lane.consume(4)
        #expect(lane.nextBytes(at: .zero, limit: 1024) == [[5][...]])
        #expect(lane.nextBytes(at: .milliseconds(10), limit: 1024) == [[5][...], [6][...]])
    }

    @Test func nextBytesKeepsHeldAndShapedPiecesApart() {
        var lane = Lane(source: .upstream, seed: 1)
        lane.push([1][...], at: .zero)
        lane.add(Self.effect(.stall(duration: .milliseconds(5), thenClose: false)), at: .zero)
        lane.push([2][...], at: .zero)
        #expect(lane.nextBytes(at: .zero, limit: 1024) == [[1][...]])
        lane.consume(1)
        var sliced = Lane(source: .upstream, seed: 1)
        sliced.add(Self.effect(.slice(size: 2, variation: 0, delay: .zero)), at: .zero)
        sliced.push([1, 2, 3, 4][...], at: .zero)
        #expect(sliced.nextBytes(at: .zero, limit: 1024) == [[1, 2][...]])
    }

    @Test func consumeAcrossItemsLeavesTheRestOfTheLastAtTheHead() {
        var lane = Lane(source: .upstream, seed: 1)
        lane.push([1, 2][...], at: .zero)
        lane.push([3, 4][...], at: .zero)
        lane.consume(3)
        #expect(lane.queuedBytes == 1 && lane.carriedOut == 1)
        #expect(lane.next(at: .zero) == .bytes([4][...]))
    }
}
