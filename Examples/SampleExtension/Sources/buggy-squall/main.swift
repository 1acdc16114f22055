import Foundation
import SampleUploadExtension
import SquallCLI

// SAMPLE_VARIANT names the bug (its child processes inherit it): never-acknowledges-failed-jobs,
// retries-bad-server-response, ignores-will-terminate, acknowledges-before-reading-headers,
// retries-401-with-stale-token.
let name = ProcessInfo.processInfo.environment["SAMPLE_VARIANT"] ?? ""
guard let variant = BuggyVariant(rawValue: name) else {
    let names = BuggyVariant.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("buggy-squall: set SAMPLE_VARIANT to one of \(names)\n".utf8))
    exit(2)
}
Squall.main(extension: variant.type, urlBase: "https://api.example.com")
