import FaultEngine
import ProxyTranscript
import TestSupport
import Testing

@testable import ProxyFlow

/// `requestWritten`: how far a body has reached the server's socket, at wire time, so that a paced upload is a
/// slope and not a jump.
@Suite struct WrittenBodyTests {
    static func through(_ events: [TranscriptEvent]) -> [(Duration, Int64, Int64?)] {
        events.compactMap { event in
            guard case .requestWritten(_, let through, let upload) = event.kind else { return nil }
            return (event.time, through, upload)
        }
    }

    @Test func marksPassAsTheLaneWritesAndAreSpaced() {
        var body = WrittenBody(connection: 3)
        // A head of 40 bytes, then the body's first 60; the next 100; another request's 50.
        body.queue(WrittenBody.Mark(start: 40, position: 100, exchange: 1, through: 60, uploadThrough: 1060))
        body.queue(WrittenBody.Mark(start: 100, position: 200, exchange: 1, through: 160, uploadThrough: 1160))
        body.queue(WrittenBody.Mark(start: 250, position: 300, exchange: 2, through: 50, uploadThrough: nil))
        // Only the head written: nothing recorded.
        #expect(body.wrote(total: 40, at: .milliseconds(5)).isEmpty)
        // Part of the second piece written: the first mark passed, and 50 of the second's 100 bytes.
        let first = body.wrote(total: 150, at: .milliseconds(10))
        #expect(Self.through(first).map(\.1) == [110])
        #expect(Self.through(first).map(\.2) == [1110])
        #expect(first.first?.connection == 3)
        // The second passes 10 ms later: within the spacing, it waits.
        #expect(body.wrote(total: 200, at: .milliseconds(20)).isEmpty)
        #expect(body.take(at: .milliseconds(30)) == nil)
        // Another exchange's mark passes: the earlier exchange's waiting mark is recorded at once, with its own time.
        let next = Self.through(body.wrote(total: 300, at: .milliseconds(40)))
        #expect(next.map(\.0) == [.milliseconds(20)])
        #expect(next.map(\.2) == [1160])
        let last = body.take()
        #expect(last.map { Self.through([$0]).map(\.1) } == [50])
        #expect(last?.time == .milliseconds(40))
        #expect(body.take() == nil)
    }

    /// A creation paced at 100 KiB/s: its body reaches the server's socket over about 0.6 s, in events at least
    /// `spacing` apart and rising to the whole body; the body's read (`requestBody`) is one range at the start.
    @Test func aPacedBodyIsASlope() throws {
        let pace = try FaultRule.parse(
            #"{"name": "slow", "action": "bandwidth", "rate": "100KiB", "direction": "upstream"}"#)
        let budget = BudgetCell(rules: [pace], seed: 1)
        var driver = FlowDriver(ConnectionFlowLifecycleTests.relaying(budget: budget))
        var legs = MemoryLegs(now: .milliseconds(1))
        let body = [UInt8](repeating: 7, count: 65536)
        let head = "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n"
        driver.feed(.received((Array(head.utf8) + body)[...], from: .client), budget: budget, legs: &legs)
        var recorded: [TranscriptEvent] = []
        while legs.now < .seconds(2) {
            driver.writeLanes(limit: 1 << 16, budget: budget, legs: &legs)
            recorded += legs.takeRecorded()
            legs.now += .milliseconds(10)
        }
        driver.recordEvents(legs: &legs)
        recorded += legs.takeRecorded()
        let written = Self.through(recorded)
        #expect(written.last?.1 == 65536)
        #expect(written.count >= 8, "\(written.map(\.1))")
        #expect(zip(written, written.dropFirst()).allSatisfy { $0.0 < $1.0 && $0.1 < $1.1 })
        // Spaced while more is queued; the last (the body's end) may follow sooner.
        let spaced = written.dropLast()
        #expect(zip(spaced, spaced.dropFirst()).allSatisfy { $1.0 - $0.0 >= WrittenBody.spacing })
        let span = (written.last?.0 ?? .zero) - (written.first?.0 ?? .zero)
        #expect(span >= .milliseconds(500), "\(span)")
        // Control: what was read is recorded at the read's time, all of it at once.
        let read = recorded.compactMap { event -> Duration? in
            if case .requestBody = event.kind { event.time } else { nil }
        }
        #expect(read == [.milliseconds(1)])
    }
}
