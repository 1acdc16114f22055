import Scenario
import Testing
import UploadJobs

@testable import ScenarioOracle

/// The `extension.*` verdicts (`ExtensionConductCheck`): each fails for the conduct it names, naming the job, and
/// passes for the same run without it; none appears when the client ran the built-in policy.
struct ExtensionConductCheckTests {
    typealias Fixture = OracleFixtures

    static let failing500 = Fixture.Transfer(
        ranges: [.init(offset: 0, length: 1000)], failure: (.badServerResponse, 500))

    static func judge(
        _ ledger: JobLedger, conduct: [ExtensionConduct]? = [], events: [EventRecord] = [], retryLimit: Int = 3
    ) -> [String: Verdict] {
        var observation = Fixture.observation(ledger: ledger, assets: Fixture.assets(count: 1))
        observation.extensionConduct = conduct
        observation.events = events
        let verdicts = ScenarioOracle.judge(Fixture.scenario([], count: 1, retryLimit: retryLimit), observation)
        return Dictionary(verdicts.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func played(_ event: String, at microseconds: Int64, index: Int) -> EventRecord {
        EventRecord(index: index, event: event, trigger: "at 0ms", runMicroseconds: microseconds)
    }

    @Test func aFailedJobNeverAcknowledgedFailsNamingItAndAnAcknowledgedOnePasses() throws {
        let held = try Fixture.ledger(retryLimit: 0, acknowledged: false, [[Self.failing500]])
        let verdict = try #require(Self.judge(held)["extension.acknowledges-finished-jobs"])
        #expect(verdict.status == .failed)
        #expect(
            verdict.evidence == [
                "job-1 (photo-1) failed (badServerResponse, HTTP 500) and the extension never acknowledged it: it "
                    + "holds an in-flight slot for good"
            ])
        let acknowledged = try Fixture.ledger(retryLimit: 0, [[Self.failing500]])
        #expect(Self.judge(acknowledged)["extension.acknowledges-finished-jobs"]?.status == .passed)
    }

    /// A client stopped for good at the end had no invocation left to acknowledge in: not judged, and says so; a
    /// relaunch after the stop makes it judged again.
    @Test func aClientStoppedAtTheEndIsNotJudgedUnlessRelaunched() throws {
        let held = try Fixture.ledger(retryLimit: 0, acknowledged: false, [[Self.failing500]])
        let stopped = Self.judge(held, events: [Self.played("terminate-client", at: 10, index: 0)])
        #expect(stopped["extension.acknowledges-finished-jobs"]?.status == .skipped)
        #expect(stopped["extension.acknowledges-finished-jobs"]?.evidence.first?.contains("terminate-client") == true)
        let relaunched = Self.judge(
            held,
            events: [
                Self.played("terminate-client", at: 10, index: 0), Self.played("relaunch-client", at: 20, index: 1),
            ])
        #expect(relaunched["extension.acknowledges-finished-jobs"]?.status == .failed)
        let disabled = Self.judge(held, events: [Self.played("disable-extension", at: 10, index: 0)])
        #expect(disabled["extension.acknowledges-finished-jobs"]?.status == .skipped)
    }

    @Test func aBadServerResponseRetriedToTheLimitFailsAndOneRetryThatSucceededPasses() throws {
        let forever = try Fixture.ledger(
            retryLimit: 3,
            Array(repeating: [Self.failing500], count: 1).map { _ in
                Array(repeating: Self.failing500, count: 4)
            })
        let verdict = try #require(Self.judge(forever)["extension.permanent-errors-not-retried"])
        #expect(verdict.status == .failed)
        #expect(
            verdict.evidence == [
                "job-1 (photo-1) failed with badServerResponse (HTTP 500, 500, 500, 500) and the extension retried it "
                    + "3 times, up to the retry limit 3, instead of acknowledging the server's final answer"
            ])
        let once = try Fixture.ledger(retryLimit: 3, [[Self.failing500, Fixture.clean()]])
        #expect(Self.judge(once)["extension.permanent-errors-not-retried"]?.status == .passed)
    }

    @Test func aChangeAfterWillTerminateFailsAndATerminationWithoutOnePasses() throws {
        let ledger = try Fixture.ledger([[Fixture.clean()]])
        let terminate = [
            Self.played("terminate-client", at: 10, index: 0), Self.played("relaunch-client", at: 20, index: 1),
        ]
        let record = ExtensionConduct(.changedAfterWillTerminate, job: JobID(1), detail: "created job-1")
        let verdict = try #require(
            Self.judge(ledger, conduct: [record], events: terminate)["extension.stops-at-will-terminate"])
        #expect(verdict.status == .failed)
        #expect(verdict.evidence == ["after willTerminate() returned, processJobs() went on: created job-1"])
        #expect(Self.judge(ledger, events: terminate)["extension.stops-at-will-terminate"]?.status == .passed)
        #expect(Self.judge(ledger)["extension.stops-at-will-terminate"] == nil, "no willTerminate: not judged")
    }

    /// A job refused with 401 and retried with the refused `Authorization` fails the verdict, naming the job and the
    /// credential; the same run with the retry carrying a new token passes; a run with no 401 does not judge it.
    @Test func a401RetriedWithTheRefusedTokenFailsAndOneWithANewTokenPasses() throws {
        let refused = Fixture.Transfer(
            ranges: [.init(offset: 0, length: 1000)], failure: (.userAuthenticationRequired, 401))
        let ledger = try Fixture.ledger(retryLimit: 3, [[refused, Fixture.clean()]])
        let record = ExtensionConduct(
            .retriedAuthFailureWithSameAuthorization, job: JobID(1), detail: "Bearer sq1.c3F1…")
        let verdict = try #require(
            Self.judge(ledger, conduct: [record])["extension.refreshes-auth-before-retrying"])
        #expect(verdict.status == .failed)
        #expect(
            verdict.evidence == [
                "job-1 (photo-1) failed with userAuthenticationRequired and the extension retried it with the "
                    + "Authorization the server refused (Bearer sq1.c3F1…): the server refuses it again; retry with a "
                    + "destination carrying a new token (SquallCredentials.refreshedAuthorization()), or acknowledge "
                    + "the failure when there is none"
            ])
        #expect(Self.judge(ledger)["extension.refreshes-auth-before-retrying"]?.status == .passed)
        let clean = try Fixture.ledger([[Fixture.clean()]])
        #expect(Self.judge(clean)["extension.refreshes-auth-before-retrying"] == nil, "no 401: not judged")
    }

    @Test func anAcknowledgementWithoutReadingTheHeadersFailsNamingTheLostId() throws {
        let ledger = try Fixture.ledger([[Fixture.clean(resourceID: "r-17")]])
        let record = ExtensionConduct(
            .acknowledgedWithoutReadingHeaders, job: JobID(1), detail: "x-server-resource-id r-17")
        let verdict = try #require(
            Self.judge(ledger, conduct: [record])["extension.reads-headers-before-acknowledging"])
        #expect(verdict.status == .failed)
        #expect(
            verdict.evidence == [
                "job-1 (photo-1) acknowledged without reading its response headers: x-server-resource-id r-17 is "
                    + "lost with the job"
            ])
        #expect(Self.judge(ledger)["extension.reads-headers-before-acknowledging"]?.status == .passed)
    }

    @Test func theBuiltInPolicyGetsNoExtensionVerdicts() throws {
        let held = try Fixture.ledger(retryLimit: 0, acknowledged: false, [[Self.failing500]])
        #expect(Self.judge(held, conduct: nil).keys.allSatisfy { !$0.hasPrefix("extension.") })
    }
}
