import TestSupport
import Testing
import UploadStore

struct UploadIDTests {
    @Test func idsAre32LowercaseHexAndUnique() {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = UploadID.generate()
            #expect(UploadID.isValid(id))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        #expect(seen.allSatisfy { $0.utf8.count == 32 && $0 == $0.lowercased() })
    }

    @Test func seededIdsAreDeterministic() {
        var first = SeededGenerator(seed: 9)
        var second = SeededGenerator(seed: 9)
        #expect(UploadID.generate(using: &first) == UploadID.generate(using: &second))
        var other = SeededGenerator(seed: 10)
        #expect(UploadID.generate(using: &first) != UploadID.generate(using: &other))
    }

    @Test(arguments: [
        "", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0", "0123456789ABCDEF0123456789abcdef",
        "../../etc/passwd0123456789abcdef", "0123456789abcdef0123456789abcdeg",
    ])
    func malformedIdsAreRejected(text: String) {
        #expect(!UploadID.isValid(text))
    }

    @Test func callerIdsMustBeWellFormedAndFree() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = "0123456789abcdef0123456789abcdef"
        #expect(UploadID.isValid(id))
        #expect(try store.create(UploadCreation(id: id)).record.id == id)
        #expect(storeError { _ = try store.create(UploadCreation(id: id)) } == .invalidID)
        #expect(storeError { _ = try store.create(UploadCreation(id: "../escape")) } == .invalidID)
    }
}
