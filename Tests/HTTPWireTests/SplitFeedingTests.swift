import HTTPWire
import TestSupport
import Testing

/// Every corpus stream gives the same events however it is cut: whole, one byte at a time, 200 random splittings.
struct SplitFeedingTests {
    @Test(arguments: Corpus.all)
    func wholeStreamParsesWithoutError(_ entry: CorpusEntry) {
        let outcome = Harness.run(entry, [entry.bytes])
        #expect(outcome.error == nil, "\(outcome)")
        #expect(outcome.endCount >= 1 || entry.endsWithConnection, "\(outcome)")
    }

    @Test(arguments: Corpus.all)
    func oneByteAtATimeMatchesWhole(_ entry: CorpusEntry) {
        let whole = Harness.run(entry, [entry.bytes])
        #expect(Harness.run(entry, ByteSplits.oneByteAtATime(entry.bytes)) == whole)
    }

    @Test(arguments: Corpus.all)
    func randomSplittingsMatchWhole(_ entry: CorpusEntry) {
        let whole = Harness.run(entry, [entry.bytes])
        for (seed, chunks) in ByteSplits.randomSplittings(entry.bytes, count: 200).enumerated() {
            let split = Harness.run(entry, chunks)
            #expect(split == whole, "seed \(seed + 1): \(split)")
            if split != whole { return }
        }
    }

    @Test(arguments: Corpus.all)
    func everyTwoPieceSplitMatchesWhole(_ entry: CorpusEntry) {
        let whole = Harness.run(entry, [entry.bytes])
        for cut in 0...entry.bytes.count {
            let split = Harness.run(entry, [Array(entry.bytes[..<cut]), Array(entry.bytes[cut...])])
            #expect(split == whole, "cut at \(cut): \(split)")
            if split != whole { return }
        }
    }
}
