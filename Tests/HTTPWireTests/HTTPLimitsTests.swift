import HTTPWire
import TestSupport
import Testing

/// The documented defaults, and that each limit can be tightened on its own.
struct HTTPLimitsTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let limits = HTTPLimits()
        #expect(limits.maxHeadSize == 65_536)
        #expect(limits.maxFieldCount == 100)
        #expect(limits.maxLineLength == 8_192)
        #expect(limits.maxChunkLineLength == 4_096)
        #expect(limits.maxTrailerSize == 16_384)
        #expect(limits.allowsBareLineFeed == false)
    }

    @Test func aHeadAtTheDefaultLimitsParses() throws {
        let fields = (0..<99).map { "X-Field-\($0): \(String(repeating: "v", count: 600))\r\n" }.joined()
        let head = wire("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n")
        #expect(head.count < 65_536)
        var parser = HTTP1Parser(role: .server)
        let events = try parser.feed(head)
        #expect(events.count == 2)
        guard case .requestHead(let request) = events.first else { return }
        #expect(request.fields.count == 100)
    }

    @Test func oneFieldMoreIsTooMany() {
        let fields = (0..<100).map { "X-Field-\($0): v\r\n" }.joined()
        var parser = HTTP1Parser(role: .server)
        let error = #expect(throws: HTTPWireError.self) {
            try parser.feed(wire("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n"))
        }
        #expect(error?.code == .tooManyFields)
    }

    @Test func hugeLimitsDoNotOverflow() throws {
        let unlimited = HTTPLimits(
            maxHeadSize: .max, maxFieldCount: .max, maxLineLength: .max, maxChunkLineLength: .max, maxTrailerSize: .max)
        let entry = Corpus.requests.first { $0.name.hasPrefix("chunked request") }!
        let outcome = Harness.run(entry.parser(limits: unlimited), ByteSplits.oneByteAtATime(entry.bytes))
        #expect(outcome == Harness.run(entry, [entry.bytes]))
        #expect(outcome.error == nil)
    }
}
