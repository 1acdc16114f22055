import Scenario
import Testing
import UploadJobs

@testable import ScenarioOracle

/// The oracle's ledger-based expectations, each against a run where it holds and one where it must fail (the
/// negative controls of issue 6), and the verdicts every run gets (faults never fired, timeout).
struct ScenarioOracleTests {
    typealias Fixture = OracleFixtures
    typealias Transfer = OracleFixtures.Transfer

    /// Judges one expectation and returns its verdict.
    private func verdict(
        _ expectation: ScenarioExpectation, _ observation: RunObservation, retryLimit: Int = 3, count: Int = 2
    ) -> Verdict {
        let verdicts = ScenarioOracle.judge(
            Fixture.scenario([expectation], count: count, retryLimit: retryLimit), observation)
        #expect(verdicts.count == 1)
        return verdicts[0]
    }

    private func failedOnce() -> [Transfer] {
        [Transfer(ranges: [.init(offset: 0, length: 400)], failure: (.networkConnectionLost, nil)), Fixture.clean()]
    }

    @Test func jobStatesCountFinalStatesAndAllMeansTheScenarioJobCount() throws {
        let ledger = try Fixture.ledger([[Fixture.clean()], failedOnce()])
        let observation = Fixture.observation(ledger: ledger)
        let all = verdict(.jobs(state: "succeeded", .all), observation)
        #expect(all.status == .passed)
        #expect(all.expected == "all (2)")
        #expect(all.observed == "2")
        #expect(verdict(.jobs(state: "failed", .exactly(0)), observation).status == .passed)
    }

    @Test func jobStatesFailAndNameEveryJobsState() throws {
        let failing = Transfer(ranges: [.init(offset: 0, length: 10)], failure: (.badServerResponse, 500))
        let ledger = try Fixture.ledger(retryLimit: 0, [[Fixture.clean()], [failing]])
        let failed = verdict(.jobs(state: "succeeded", .all), Fixture.observation(ledger: ledger), retryLimit: 0)
        #expect(failed.status == .failed)
        #expect(failed.observed == "1")
        #expect(Array(failed.evidence.prefix(2)) == ["job-1 (photo-1): succeeded", "job-2 (photo-2): failed"])
        // The 500 is permanent only by the built-in policy's default: the last line says so, and how to change it.
        #expect(failed.evidence.count == 3)
        #expect(failed.evidence.last?.hasPrefix("job-2 (photo-2) failed with badServerResponse, HTTP 500: ") == true)
    }

    @Test func acknowledgedOnceCountsAcknowledgements() throws {
        let ledger = try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]])
        #expect(verdict(.acknowledgedOnce(true), Fixture.observation(ledger: ledger)).status == .passed)
        var store = JobStore()
        try store.performChanges(at: 1) {
            _ = try $0.createJob(assetID: "/assets/photo-1", destination: Fixture.destination)
        }
        let unacknowledged = verdict(.acknowledgedOnce(true), Fixture.observation(ledger: store.ledger))
        #expect(unacknowledged.status == .failed)
        #expect(unacknowledged.observed == "false (1 of 1 jobs not)")
        #expect(unacknowledged.evidence == ["job-1 (photo-1): acknowledged 0 times"])
        #expect(verdict(.acknowledgedOnce(false), Fixture.observation(ledger: store.ledger)).status == .passed)
    }

    /// Negative control: a retry limit of 2 against a server that always answers 500 makes exactly 3 attempts,
    /// so an expectation of 4 attempts fails and one of 3 passes.
    @Test func attemptsAgainstAServerThatAlwaysAnswers500() throws {
        let always500 = Transfer(ranges: [.init(offset: 0, length: 1000)], failure: (.badServerResponse, 500))
        let ledger = try Fixture.ledger(retryLimit: 2, [Array(repeating: always500, count: 3)])
        #expect(throws: JobStoreError.self) {
            try Fixture.ledger(retryLimit: 2, [Array(repeating: always500, count: 4)])
        }
        let observation = Fixture.observation(ledger: ledger)
        #expect(ledger.all.map(\.attempts) == [3])
        let three = verdict(.attempts(.exactly(3)), observation, retryLimit: 2, count: 1)
        #expect(three.status == .passed)
        #expect(three.observed == "3 per job")
        let four = verdict(.attempts(.exactly(4)), observation, retryLimit: 2, count: 1)
        #expect(four.status == .failed)
        #expect(four.evidence.first == "job-1 (photo-1): 3 attempts")
        #expect(four.evidence.dropFirst().allSatisfy { $0.contains("permanent only by the built-in policy's default") })
    }

    @Test func retriesAreJudgedPerJob() throws {
        let ledger = try Fixture.ledger([[Fixture.clean()], failedOnce()])
        let observation = Fixture.observation(ledger: ledger)
        let atMostOne = verdict(.retries(.range(min: nil, max: 1)), observation)
        #expect(atMostOne.status == .passed)
        #expect(atMostOne.observed == "0…1 per job")
        let none = verdict(.retries(.exactly(0)), observation)
        #expect(none.status == .failed)
        #expect(none.evidence == ["job-2 (photo-2): 1 retries"])
    }

    @Test func retryLimitRespectedComparesWithTheClientsLimit() throws {
        let ledger = try Fixture.ledger([failedOnce()])
        #expect(
            verdict(.retryLimitRespected(true), Fixture.observation(ledger: ledger), retryLimit: 1).status == .passed)
        let exceeded = verdict(.retryLimitRespected(true), Fixture.observation(ledger: ledger), retryLimit: 0)
        #expect(exceeded.status == .failed)
        #expect(exceeded.evidence == ["job-1 (photo-1): 1 retries, limit 0"])
    }

    @Test func resumptionsSumAutomaticResumes() throws {
        let resumed = Transfer(
            ranges: [.init(offset: 0, length: 400), .init(offset: 400, length: 300), .init(offset: 700, length: 300)],
            resumes: [400, 700])
        let ledger = try Fixture.ledger([[resumed], [Fixture.clean()]])
        let observation = Fixture.observation(ledger: ledger)
        let some = verdict(.resumptions(.range(min: 1, max: nil)), observation)
        #expect(some.status == .passed)
        #expect(some.observed == "2")
        #expect(some.evidence == ["job-1 (photo-1): resumed at 400, 700"])
        let none = try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]])
        #expect(verdict(.resumptions(.range(min: 1, max: nil)), Fixture.observation(ledger: none)).status == .failed)
    }

    @Test func retransmittedBytesCountBytesBeyondEachAssetsSize() throws {
        let overlapping = Transfer(
            ranges: [.init(offset: 0, length: 600), .init(offset: 400, length: 600)], resumes: [400])
        let ledger = try Fixture.ledger([[overlapping], [Fixture.clean()]])
        let failed = verdict(.retransmittedBytes(.exactly(0)), Fixture.observation(ledger: ledger))
        #expect(failed.status == .failed)
        #expect(failed.observed == "200")
        #expect(failed.evidence == ["job-1 (photo-1): 200 bytes sent again"])
        let clean = try Fixture.ledger([[Fixture.clean()], [Fixture.clean()]])
        #expect(verdict(.retransmittedBytes(.exactly(0)), Fixture.observation(ledger: clean)).status == .passed)
        let unknownAsset = verdict(.retransmittedBytes(.exactly(200)), Fixture.observation(ledger: ledger, assets: []))
        #expect(unknownAsset.status == .passed)
    }

    @Test func restartsFromZeroCountRangesAtZeroAfterTheFirst() throws {
        let ledger = try Fixture.ledger([failedOnce(), [Fixture.clean()]])
        let failed = verdict(.restartsFromZero(.exactly(0)), Fixture.observation(ledger: ledger))
        #expect(failed.status == .failed)
        #expect(failed.observed == "1")
        #expect(failed.evidence == ["job-1 (photo-1): 1 restarts from byte 0"])
        #expect(verdict(.restartsFromZero(.exactly(1)), Fixture.observation(ledger: ledger)).status == .passed)
    }

    /// A server killed before it stored a byte of the upload reports offset 0 to the resuming HEAD: the append from
    /// 0 that follows is a resume, not a restart; the same range without the resume is one.
    @Test func aResumeAtOffsetZeroIsNoRestart() throws {
        let cut = ByteRange(offset: 0, length: 500)
        let resumed = Transfer(ranges: [cut, ByteRange(offset: 0, length: 1000)], resumes: [0])
        let observation = Fixture.observation(ledger: try Fixture.ledger([[resumed]]))
        #expect(verdict(.restartsFromZero(.exactly(0)), observation).status == .passed)
        #expect(verdict(.resumptions(.exactly(1)), observation).status == .passed)
        let restarted = Transfer(ranges: [cut, ByteRange(offset: 0, length: 1000)])
        let control = verdict(
            .restartsFromZero(.exactly(0)), Fixture.observation(ledger: try Fixture.ledger([[restarted]])))
        #expect(control.status == .failed)
        #expect(control.evidence.first == "job-1 (photo-1): 1 restarts from byte 0")
    }

    @Test func jobErrorsCountFailuresByCode() throws {
        let ledger = try Fixture.ledger([failedOnce(), [Fixture.clean()]])
        let observation = Fixture.observation(ledger: ledger)
        #expect(
            verdict(.jobErrors(code: "networkConnectionLost", .range(min: 1, max: nil)), observation).status == .passed)
        let timedOut = verdict(.jobErrors(code: "timedOut", .range(min: 1, max: nil)), observation)
        #expect(timedOut.status == .failed)
        #expect(timedOut.observed == "0")
    }

    @Test func peakInFlightProcessJobsResultsAndWallTime() {
        let observation = Fixture.observation(
            processJobsResults: ["processing", "completed", "processing"], peakInFlight: 3,
            wallTime: .milliseconds(1500))
        #expect(verdict(.peakInFlight(.range(min: nil, max: 3)), observation).status == .passed)
        #expect(verdict(.peakInFlight(.range(min: nil, max: 2)), observation).status == .failed)
        #expect(verdict(.processJobsResults(result: "processing", .exactly(2)), observation).status == .passed)
        #expect(
            verdict(.processJobsResults(result: "failure", .range(min: 1, max: nil)), observation).status == .failed)
        let within = verdict(.wallTime(max: .seconds(2)), observation)
        #expect(within.status == .passed)
        #expect(within.expected == "≤ 2.000s")
        #expect(within.observed == "1.500s")
        #expect(verdict(.wallTime(max: .seconds(1)), observation).status == .failed)
    }

    @Test func faultsThatNeverFiredAndTheTimeoutFailAfterTheExpectations() {
        let scenario = Fixture.scenario([.peakInFlight(.exactly(1))])
        let verdicts = ScenarioOracle.judge(
            scenario, Fixture.observation(neverFired: ["reset-mid", "stall"], wallTime: .seconds(30), timedOut: true))
        #expect(verdicts.map(\.key) == ["peak-in-flight", "fault.reset-mid", "fault.stall", "timeout"])
        #expect(verdicts.map(\.status) == [.passed, .failed, .failed, .failed])
        #expect(verdicts[1].evidence == ["declared fault reset-mid never fired"])
        #expect(verdicts[3].observed == "stopped at the timeout after 30.000s")
        #expect(ScenarioOracle.judge(scenario, Fixture.observation()).map(\.status) == [.passed])
    }

    @Test(arguments: [(Duration.milliseconds(1234), "1.234s"), (.seconds(0), "0.000s"), (.milliseconds(-5), "-0.005s")])
    func secondsAreWrittenWithMilliseconds(duration: Duration, text: String) {
        #expect(ScenarioOracle.seconds(duration) == text)
    }
}
