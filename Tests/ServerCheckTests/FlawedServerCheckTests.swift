import ResumableUpload
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

    /// Every case that did not fail passed, except max-size (skipped: no max-size in the profile) and the cases of
    /// later versions (skipped at the version checked).
    func expectTheRestPass(_ results: [ServerCheckResult]) {
        for result in results where result.outcome != .failed {
            let skips =
                CheckFixture.needsMaxSize.contains(result.name)
                || !ServerCheck.versions(of: result.name).contains(result.version)
            #expect(result.outcome == (skips ? .skipped : .passed), "\(result)")
        }
    }

    /// The cases that run at interop `version` against a server whose profile states everything.
    static func cases(at version: Int) -> Set<String> {
        Set(ServerCheck.cases.map(\.name).filter { ServerCheck.versions(of: $0).contains(version) })
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
        #expect(CheckFixture.failed(results) == Self.cases(at: 6).subtracting(carryNone))
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

    /// Checks a flawed server at interop 10 (serving `versions`, its profile listing them).
    func checkNewest(
        _ flaw: FlawedUploadServer.Flaw, versions: [Int] = Array(3...10)
    ) throws -> [ServerCheckResult] {
        let server = try FlawedUploadServer(
            flaw: flaw, versions: Set(versions.compactMap(InteropVersion.init(rawValue:))))
        defer { server.stop() }
        return try CheckFixture.check(
            server.creationURL, versions: [10], profile: CheckFixture.profile(interop: versions))
    }

    /// Each requirement the newest drafts added, broken alone, fails the case that catches it, named; the same
    /// server without the flaw passes at interop 10 (the control).
    @Test(arguments: [
        (FlawedUploadServer.Flaw.none, Set<String>()),
        (.conflictWithoutIncompleteFlag, Set(["append-wrong-offset"])),
        (.getIsNotRetrieval, Set(["get-offset"])),
        (.keepsUploadPastLength, Set(["append-past-length"])),
    ])
    func theNewestRequirementsAreCheckedByName(flaw: FlawedUploadServer.Flaw, failing: Set<String>) throws {
        let results = try checkNewest(flaw)
        #expect(CheckFixture.failed(results) == failing, "\(CheckFixture.failures(results))")
        expectTheRestPass(results)
        if flaw == .conflictWithoutIncompleteFlag {
            let conflict = try #require(results.first { $0.name == "append-wrong-offset" })
            #expect(conflict.detail.contains("completion-value: a 409 to an append without Upload-Complete: ?0"))
        }
    }

    /// A server with a max-size that announces no limits on the creation's 104 and 201 fails the case that
    /// checks them at interop 10; the same server announcing them (the control) passes every case.
    @Test(arguments: [FlawedUploadServer.Flaw.none, .noLimitsOnAnnouncement])
    func limitsMissingFromTheAnnouncementAreNamed(flaw: FlawedUploadServer.Flaw) throws {
        let server = try FlawedUploadServer(flaw: flaw, maxSize: 1 << 20)
        defer { server.stop() }
        let results = try CheckFixture.check(
            server.creationURL, versions: [10], profile: CheckFixture.profile(interop: [10], maxSize: 1 << 20))
        let failing: Set<String> = flaw == .none ? [] : ["limits-on-announcement"]
        #expect(CheckFixture.failed(results) == failing, "\(CheckFixture.failures(results))")
        #expect(results.allSatisfy { $0.outcome != .skipped }, "every case runs at 10 with a max-size")
    }

    /// A server that behaves as Apple's interop-10 middleware documents itself (serving 6 and 10) is judged
    /// truthfully: its 201 to incomplete appends passes (the draft asks only for a 2xx); its 400 to a version it
    /// does not serve and its 409 to inconsistent lengths are named.
    @Test func appleMiddlewareIsJudgedTruthfully() throws {
        let results = try checkNewest(.appleMiddleware, versions: [6, 10])
        #expect(
            CheckFixture.failed(results) == ["plain-unknown-version", "length-mismatch"],
            "\(CheckFixture.failures(results))")
        expectTheRestPass(results)
        let append = try #require(results.first { $0.name == "append" })
        #expect(append.outcome == .passed && append.detail.hasPrefix("201"))
        let lengths = try #require(results.first { $0.name == "length-mismatch" })
        #expect(lengths.detail.hasPrefix("409"))
    }
}
