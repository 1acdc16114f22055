import Scenario
import ServerCheck
import TestSupport
import Testing

/// Negative controls: servers that get one thing wrong (`FlawedUploadServer`, one switch each) fail exactly the
/// cases that catch it, and pass (or skip) the rest; the same server without the flaw passes every case.
struct FlawedServerCheckTests {
    /// Checks a flawed server at interop 6 (its profile lists 6, keeps completed uploads, states no max-size).
    func check(_ flaw: FlawedUploadServer.Flaw, timeout: Duration = .seconds(10)) throws -> [ServerCheckResult] {
        let server = try FlawedUploadServer(flaw: flaw)
        defer { server.stop() }
        return try CheckFixture.check(
            server.creationURL, versions: [6], profile: CheckFixture.profile(interop: [6]), timeout: timeout)
    }

    /// Every case that did not fail passed, except max-size (skipped: no max-size in the profile).
    func expectTheRestPass(_ results: [ServerCheckResult]) {
        for result in results where result.outcome != .failed {
            #expect(result.outcome == (result.name == "max-size" ? .skipped : .passed), "\(result)")
        }
    }

    @Test func theServerWithoutAFlawPassesEveryCase() throws {
        let results = try check(.none)
        #expect(CheckFixture.failed(results).isEmpty, "\(CheckFixture.failures(results))")
        expectTheRestPass(results)
    }

    @Test func swappedCompletionFieldsFailEveryCaseWhoseAnswersCarryOne() throws {
        let results = try check(.swappedCompletionField)
        let carryNone: Set<String> = [
            "options", "plain-without-version", "plain-unknown-version", "length-mismatch", "max-size", "huge-head",
        ]
        #expect(CheckFixture.failed(results) == Set(ServerCheck.cases.map(\.name)).subtracting(carryNone))
        expectTheRestPass(results)
        let partial = try #require(results.first { $0.name == "create-partial" })
        #expect(partial.expected == "answers that follow the draft at interop 6")
        #expect(partial.detail.contains("completion-field: Upload-Incomplete: ?1 in a 201 to an interop 6 request"))
    }

    @Test func aConflictThatDeletesTheUploadFailsTheWrongOffsetCase() throws {
        let results = try check(.conflictDeletesUpload)
        #expect(CheckFixture.failed(results) == ["append-wrong-offset"], "\(CheckFixture.failures(results))")
        expectTheRestPass(results)
        let wrongOffset = try #require(results.first { $0.name == "append-wrong-offset" })
        #expect(wrongOffset.expected == "HEAD to be answered 2xx at offset 32")
        #expect(wrongOffset.detail.hasPrefix("404"))
    }

    @Test func aServerRejectingUnknownVersionsFailsThePlainFallbackCase() throws {
        let results = try check(.rejectsUnknownVersions)
        #expect(CheckFixture.failed(results) == ["plain-unknown-version"], "\(CheckFixture.failures(results))")
        expectTheRestPass(results)
        let unknown = try #require(results.first { $0.name == "plain-unknown-version" })
        #expect(unknown.detail.hasPrefix("400"))
    }

    @Test func headsThatHangUnlessReadWholeFailThePacedAndHugeHeadsWithinTheTimeout() throws {
        let started = ContinuousClock.now
        let results = try check(.needsHeadInOneRead, timeout: .seconds(2))
        #expect(
            CheckFixture.failed(results) == ["split-head", "slow-head", "huge-head"],
            "\(CheckFixture.failures(results))")
        expectTheRestPass(results)
        for result in results where result.outcome == .failed {
            #expect(result.detail == "no answer within the case's 2.0 seconds (--timeout)", "\(result)")
            #expect(result.duration < .seconds(4))
        }
        #expect(ContinuousClock.now - started < .seconds(30), "bounded by the cases' timeouts")
    }
}
