import HTTPWire
import ProxyTranscript
import Testing

struct TranscriptTests {
    static func close(_ n: Int, side: CloseSide = .client, kind: CloseKind = .fin) -> TranscriptEvent {
        TranscriptEvent(time: .microseconds(n), connection: n, kind: .closed(side: side, kind: kind))
    }

    @Test func keepsEveryEventInOrderWithoutACap() {
        var transcript = Transcript()
        for n in 1...1000 { transcript.append(Self.close(n)) }
        #expect(transcript.count == 1000)
        #expect(transcript.droppedCount == 0)
        #expect(transcript.events.map(\.connection) == Array(1...1000))
    }

    @Test(arguments: [1, 2, 3, 7])
    func dropsTheOldestPastTheCap(cap: Int) {
        var transcript = Transcript(cap: cap)
        for n in 1...25 {
            transcript.append(Self.close(n))
            #expect(transcript.count == min(n, cap))
            #expect(transcript.droppedCount == max(0, n - cap))
            #expect(transcript.events.map(\.connection) == Array(max(1, n - cap + 1)...n))
        }
    }

    /// The proxy's memory bound (issue 37): however many heads pass, the kept ones stay within the byte cap, the
    /// newest are kept, and every dropped one is counted.
    @Test func keepsWithinItsByteCapDroppingTheOldest() {
        let cap = 64 * 1024
        var transcript = Transcript(byteCap: cap)
        var fields = HTTPFields()
        fields.append(name: "Authorization", value: "Bearer " + String(repeating: "t", count: 200))
        let head = RequestHead(method: .post, target: "/upload/" + String(repeating: "x", count: 40), fields: fields)
        for n in 1...10_000 {
            transcript.append(TranscriptEvent(time: .zero, connection: n, kind: .requestHead(exchange: 1, head)))
            #expect(transcript.keptBytes <= cap)
        }
        let each = transcript.events[0].footprint
        #expect(each > 200, "the head's field section counts")
        #expect(transcript.count == cap / each)
        #expect(transcript.droppedCount + transcript.count == 10_000)
        #expect(transcript.events.last?.connection == 10_000)
        #expect(transcript.events.first?.connection == 10_000 - transcript.count + 1)
        // Negative control: without the cap, the same events take as many bytes as they are.
        var unbounded = Transcript()
        for n in 1...10_000 {
            unbounded.append(TranscriptEvent(time: .zero, connection: n, kind: .requestHead(exchange: 1, head)))
        }
        #expect(unbounded.count == 10_000 && unbounded.droppedCount == 0)
        #expect(unbounded.keptBytes == 10_000 * each && unbounded.keptBytes > cap)
    }

    /// Across many compactions, a reader following the transcript by position gets exactly the kept events from
    /// there, and the kept bytes are the kept events' footprints.
    @Test(arguments: [1, 9, 64, 100, 1000])
    func followingByPositionSurvivesCompaction(cap: Int) {
        var transcript = Transcript(cap: cap)
        var position = 0
        var seen: [Int] = []
        for n in 1...5000 {
            transcript.append(Self.close(n))
            if n % 7 == 0 {
                let since = transcript.events(since: position)
                seen += since.map(\.connection)
                position = transcript.appendedCount
            }
            #expect(transcript.keptBytes == transcript.events.reduce(0) { $0 + $1.footprint })
        }
        #expect(transcript.count == min(cap, 5000) && transcript.droppedCount == 5000 - transcript.count)
        #expect(transcript.events.map(\.connection) == Array((5000 - transcript.count + 1)...5000))
        // A reader that looked every 7 events missed only what the cap dropped between two looks.
        #expect(seen == seen.sorted() && Set(seen).count == seen.count)
        if cap >= 7 { #expect(seen == Array(1...4998)) }
    }

    @Test func keepsTheNewestEventEvenPastTheByteCap() {
        var transcript = Transcript(byteCap: 1)
        for n in 1...3 { transcript.append(Self.close(n)) }
        #expect(transcript.events.map(\.connection) == [3])
        #expect(transcript.droppedCount == 2)
    }

    @Test func writesJSONLinesOfTheKeptEvents() throws {
        var transcript = Transcript(cap: 2)
        for n in 1...3 { transcript.append(Self.close(n)) }
        let lines = transcript.jsonLines().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines.last == "")
        #expect(
            try lines.dropLast().map { try TranscriptEvent(jsonLine: String($0)) } == [Self.close(2), Self.close(3)])
        #expect(Transcript().jsonLines() == "")
    }

    @Test func listsFaultsFiredInOrder() {
        var transcript = Transcript()
        transcript.append(Self.close(1))
        let first = FiredFault(rule: "a", action: "reset", direction: .upstream, offset: 10)
        let second = FiredFault(rule: "b", action: "latency", direction: .both)
        transcript.append(TranscriptEvent(time: .seconds(2), connection: 4, kind: .faultFired(first)))
        transcript.append(TranscriptEvent(time: .seconds(3), connection: 5, kind: .faultFired(second)))
        let fired = transcript.faultsFired()
        #expect(fired.map(\.fault) == [first, second])
        #expect(fired.map(\.connection) == [4, 5])
        #expect(fired.map(\.time) == [.seconds(2), .seconds(3)])
        #expect(Transcript().faultsFired().isEmpty)
    }

    @Test func filtersClosesBySideAndKind() {
        var transcript = Transcript()
        transcript.append(Self.close(1, side: .client, kind: .fin))
        transcript.append(Self.close(2, side: .upstream, kind: .rst))
        transcript.append(Self.close(3, side: .proxy, kind: .rst))
        transcript.append(TranscriptEvent(time: .zero, connection: 4, kind: .opened(client: "c", listener: "l")))
        transcript.append(Self.close(5, side: .client, kind: .rst))
        #expect(transcript.closes().map(\.connection) == [1, 2, 3, 5])
        #expect(transcript.closes(side: .client).map(\.connection) == [1, 5])
        #expect(transcript.closes(kind: .rst).map(\.connection) == [2, 3, 5])
        #expect(transcript.closes(side: .proxy, kind: .rst).map(\.connection) == [3])
        #expect(transcript.closes(side: .proxy, kind: .fin).isEmpty)
        let upstream = transcript.closes(side: .upstream)
        #expect(upstream.map(\.kind) == [.rst])
        #expect(upstream.map(\.time) == [.microseconds(2)])
    }

    @Test func listsConnectionsInFirstSeenOrder() {
        var transcript = Transcript()
        for n in [3, 1, 3, 2, 1] { transcript.append(Self.close(n)) }
        #expect(transcript.connections == [3, 1, 2])
    }
}
