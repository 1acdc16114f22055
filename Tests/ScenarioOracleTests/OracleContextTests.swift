import HTTPWire
import Scenario
import Testing

@testable import ScenarioOracle

/// The oracle's transcript counts (requests per method, auth refreshes) and server expectations (objects intact,
/// resource ids recorded), passing and failing, and skipped, never passed, without server introspection.
struct OracleContextTests {
    typealias Fixture = OracleFixtures

    private func verdict(_ expectation: ScenarioExpectation, _ observation: RunObservation) -> Verdict {
        ScenarioOracle.judge(Fixture.scenario([expectation]), observation)[0]
    }

    private func requestsTranscript(tokens: Int) -> Fixture.TranscriptBuilder {
        var builder = Fixture.TranscriptBuilder()
        builder.exchange(1, 1, .options, "/upload", status: 200)
        for number in 0..<tokens {
            builder.exchange(1, 2 + number, .post, "/_squall/token?for=client", status: 200)
        }
        builder.exchange(2, 1, .post, "/upload", body: 10, status: 201)
        return builder
    }

    @Test func requestsCountHeadsByMethod() {
        let observation = Fixture.observation(transcript: requestsTranscript(tokens: 1).transcript)
        let options = verdict(.requests(method: "OPTIONS", .range(min: nil, max: 1)), observation)
        #expect(options.status == .passed)
        #expect(options.evidence == ["conn 1 #1 OPTIONS /upload"])
        let posts = verdict(.requests(method: "POST", .exactly(1)), observation)
        #expect(posts.status == .failed)
        #expect(posts.observed == "2")
        #expect(verdict(.requests(method: "post", .exactly(0)), observation).status == .passed)
    }

    @Test func authRefreshesCountTokenRequestsAfterTheFirst() {
        let once = Fixture.observation(transcript: requestsTranscript(tokens: 1).transcript)
        #expect(verdict(.authRefreshes(.exactly(0)), once).status == .passed)
        #expect(verdict(.authRefreshes(.range(min: 1, max: nil)), once).status == .failed)
        let thrice = Fixture.observation(transcript: requestsTranscript(tokens: 3).transcript)
        let refreshed = verdict(.authRefreshes(.range(min: 1, max: nil)), thrice)
        #expect(refreshed.status == .passed)
        #expect(refreshed.observed == "2")
        #expect(verdict(.authRefreshes(.exactly(0)), Fixture.observation()).observed == "0")
    }

    private func upload(_ id: String, sha: String?, complete: Bool = true) -> ServerUpload {
        ServerUpload(id: id, complete: complete, cancelled: false, length: 1000, offset: 1000, sha256: sha)
    }

    @Test func serverObjectsIntactWantsEachSucceededAssetOnceWithItsDigest() throws {
        let ledger = try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]])
        let intact = [
            upload("u1", sha: "sha-1"), upload("u2", sha: "sha-2"), upload("u3", sha: "sha-1", complete: false),
        ]
        #expect(
            verdict(.serverObjectsIntact(true), Fixture.observation(ledger: ledger, serverUploads: intact)).status
                == .passed)
        let broken = [upload("u1", sha: "sha-1"), upload("u2", sha: "corrupt"), upload("u4", sha: "sha-1")]
        let failed = verdict(.serverObjectsIntact(true), Fixture.observation(ledger: ledger, serverUploads: broken))
        #expect(failed.status == .failed)
        #expect(
            failed.evidence == [
                "job-1 (photo-1): 2 complete uploads with sha256 sha-1",
                "job-2 (photo-2): 0 complete uploads with sha256 sha-2",
                "duplicate sha256 sha-1: uploads u1, u4",
            ])
    }

    @Test func serverResourceIDsMustNameAServerUpload() throws {
        let ledger = try Fixture.ledger([[Fixture.clean(resourceID: "u1")], [Fixture.clean(resourceID: "u9")]])
        let uploads = [upload("u1", sha: "sha-1"), upload("u2", sha: "sha-2")]
        let failed = verdict(
            .serverResourceIDsRecorded(true), Fixture.observation(ledger: ledger, serverUploads: uploads))
        #expect(failed.status == .failed)
        #expect(failed.evidence == ["job-2 (photo-2): recorded u9, not a server upload"])
        let recorded = try Fixture.ledger([[Fixture.clean(resourceID: "u1")], [Fixture.clean(resourceID: "u2")]])
        let passed = verdict(
            .serverResourceIDsRecorded(true), Fixture.observation(ledger: recorded, serverUploads: uploads))
        #expect(passed.status == .passed)
        let unrecorded = try Fixture.ledger([[Fixture.clean()]])
        #expect(
            verdict(.serverResourceIDsRecorded(true), Fixture.observation(ledger: unrecorded, serverUploads: uploads))
                .evidence == ["job-1 (photo-1): no server resource id recorded"])
    }

    @Test(arguments: [ScenarioExpectation.serverObjectsIntact(true), .serverResourceIDsRecorded(true)])
    func serverExpectationsAreSkippedWithoutServerIntrospection(expectation: ScenarioExpectation) throws {
        let ledger = try Fixture.ledger([[Fixture.clean()]])
        let skipped = verdict(expectation, Fixture.observation(ledger: ledger, serverUploads: nil))
        #expect(skipped.status == .skipped)
        #expect(skipped.observed == "not observable: no server introspection (--upstream)")
        let withServer = verdict(expectation, Fixture.observation(ledger: ledger, serverUploads: []))
        #expect(withServer.status == .failed)
    }
}
