import HTTPWire
import TestSupport
import Testing

/// Every proper prefix of a corpus message is "need more": no error and no `.end` while feeding, and a typed
/// `.truncated` from `finish()`, unless the connection's end completes the exchange.
struct TruncationTests {
    static let messages = Corpus.all.filter { !$0.isPipelined }

    @Test(arguments: messages)
    func everyPrefixNeedsMore(_ entry: CorpusEntry) {
        let whole = Harness.run(entry, [entry.bytes], finishing: false)
        for prefix in ByteSplits.truncations(entry.bytes) {
            let partial = Harness.run(entry, [prefix], finishing: false)
            #expect(partial.error == nil, "prefix \(prefix.count): \(partial)")
            #expect(partial.endCount == 0, "prefix \(prefix.count): \(partial)")
            #expect(Harness.isPrefix(partial.events, of: whole.events), "prefix \(prefix.count): \(partial)")
        }
    }

    @Test(arguments: messages)
    func finishingAPrefixIsTruncated(_ entry: CorpusEntry) {
        for prefix in ByteSplits.truncations(entry.bytes) where !(prefix.isEmpty && entry.role == .server) {
            let outcome = Harness.run(entry, [prefix])
            if entry.endsWithConnection && Self.hasFinalHead(outcome.events) {
                #expect(outcome.error == nil, "prefix \(prefix.count): \(outcome)")
            } else {
                #expect(outcome.error?.code == .truncated, "prefix \(prefix.count): \(outcome)")
            }
        }
    }

    @Test(arguments: messages)
    func finishingAPrefixFedByteByByteIsTruncatedAlike(_ entry: CorpusEntry) {
        for prefix in ByteSplits.truncations(entry.bytes) {
            let whole = Harness.run(entry, [prefix])
            #expect(Harness.run(entry, ByteSplits.oneByteAtATime(prefix)) == whole, "prefix \(prefix.count)")
        }
    }

    @Test func anEmptyRequestStreamFinishesCleanly() throws {
        var parser = HTTP1Parser(role: .server)
        #expect(try parser.finish() == [])
    }

    @Test func readUntilCloseEndsAtFinish() {
        let entry = Corpus.responses.first { $0.name.hasPrefix("read until close") }!
        let outcome = Harness.run(entry, [entry.bytes])
        #expect(outcome.events.last == .end(trailers: [:]))
        #expect(outcome.events.dropFirst().first == .body(wire("hello until the connection closes")[...]))
    }

    private static func hasFinalHead(_ events: [HTTP1Event]) -> Bool {
        events.contains { event in
            if case .responseHead(let head) = event { !head.isInformational || head.status == 101 } else { false }
        }
    }
}
