import Harness
import Testing

struct UploadContentTests {
    func bytes(_ content: UploadContent, chunkSize: Int) -> [UInt8] {
        var all: [UInt8] = []
        content.forEachChunk(size: chunkSize) { all += $0 }
        return all
    }

    @Test func sameSeedSameBytesWhateverTheChunking() {
        let content = UploadContent(seed: 9, length: 100_003)
        let reference = bytes(content, chunkSize: 64 * 1024)
        #expect(reference.count == 100_003)
        #expect(bytes(content, chunkSize: 8) == reference)
        #expect(bytes(content, chunkSize: 4096) == reference)
        #expect(bytes(UploadContent(seed: 9, length: 50), chunkSize: 16) == Array(reference.prefix(50)))
    }

    @Test func differentSeedsDiffer() {
        let one = bytes(UploadContent(seed: 1, length: 64), chunkSize: 64)
        let two = bytes(UploadContent(seed: 2, length: 64), chunkSize: 64)
        #expect(one != two)
    }

    @Test func emptyContentGivesNoChunk() {
        var calls = 0
        UploadContent(seed: 1, length: 0).forEachChunk { _ in calls += 1 }
        #expect(calls == 0)
    }
}
