import SquallCore
import Testing

@testable import ServerCheck

/// The catalog's own pieces: stable, distinct names; an unknown upload of the same shape; token paths.
struct CheckCatalogTests {
    @Test func caseNamesAreDistinctAndLowercaseWords() {
        let names = ServerCheck.cases.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.wholeMatch(of: /[a-z]+(-[a-z0-9]+)*/) != nil })
        #expect(ServerCheck.cases.allSatisfy { !$0.checks.isEmpty })
    }

    @Test(arguments: [
        ("http://h:1/upload/7f3a-b2", "http://h:1/upload/0000-00"), ("/upload/000", "/upload/fff"),
        ("http://h/u/", "http://h/u/0"),
    ])
    func anUnknownUploadHasTheShapeOfAKnownOne(known: String, unknown: String) {
        #expect(CheckCatalog.unknownResource(known) == unknown)
    }
}
