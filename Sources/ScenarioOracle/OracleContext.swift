import Scenario
import UploadJobs

/// What the oracle judges with: the scenario, the observation, and the facts several expectations share.
struct OracleContext {
    let scenario: Scenario
    let observation: RunObservation
    /// Every job in the ledger, in creation order.
    let jobs: [JobHistory]
    /// What `"all"` counts: the scenario's job count.
    let total: Int64
    /// The assets by asset id.
    let assets: [String: AssetDigest]

    init(scenario: Scenario, observation: RunObservation) {
        self.scenario = scenario
        self.observation = observation
        self.jobs = observation.ledger.all
        self.total = Int64(scenario.assetCount)
        self.assets = Dictionary(observation.assets.map { ($0.assetID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The verdict of one expectation.
    func verdict(for expectation: Expectation) -> Verdict {
        let key = expectation.key
        if expectation.needsServerIntrospection && observation.serverUploads == nil {
            return Verdict(
                key: key, status: .skipped, expected: expectedText(expectation), observed: observation.noServerState)
        }
        switch expectation {
        case .jobs(let state, let count): return jobStates(key, state: state, count)
        case .acknowledgedOnce(let wanted): return acknowledgedOnce(key, wanted)
        case .acknowledgedAtMostOnce(let wanted): return acknowledgedAtMostOnce(key, wanted)
        case .noJobLost(let wanted): return noJobLost(key, wanted)
        case .acknowledgedBytesKept(let wanted): return acknowledgedBytesKept(key, wanted)
        case .noAvoidableDuplicates(let wanted): return noAvoidableDuplicates(key, wanted)
        case .attempts(let count): return perJob(key, count, noun: "attempts") { $0.attempts }
        case .retries(let count): return perJob(key, count, noun: "retries") { $0.retries }
        case .retryLimitRespected(let wanted): return retryLimitRespected(key, wanted)
        case .resumptions(let count): return resumptions(key, count)
        case .appendsAtServerOffset(let wanted): return appendsAtServerOffset(key, wanted)
        case .serverOffsetAtCut(let wanted): return serverOffsetAtCut(key, wanted)
        case .refusedStreamsRetried(let wanted): return refusedStreamsRetried(key, wanted)
        case .retransmittedBytes(let count): return retransmittedBytes(key, count)
        case .restartsFromZero(let count): return restartsFromZero(key, count)
        case .peakInFlight(let count):
            return counted(key, count, Int64(observation.peakInFlight), evidence: [])
        case .authRefreshes(let count): return authRefreshes(key, count)
        case .requests(let method, let count): return requests(key, method: method, count)
        case .serverObjectsIntact(let wanted): return serverObjectsIntact(key, wanted)
        case .serverResourceIDsRecorded(let wanted): return serverResourceIDsRecorded(key, wanted)
        case .jobErrors(let code, let count): return jobErrors(key, code: code, count)
        case .processJobsResults(let result, let count):
            let value = observation.processJobsResults.count { $0 == result }
            return counted(key, count, Int64(value), evidence: [])
        case .wallTime(let max): return wallTime(key, max: max)
        case .serverConformance(let wanted, let allowed): return serverConformance(key, wanted, allowed: allowed)
        }
    }

    /// A count verdict: passed when `count` accepts `value`.
    func counted(_ key: String, _ count: Expectation.Count, _ value: Int64, evidence: [String]) -> Verdict {
        Verdict(
            key: key, status: count.accepts(value, total: total) ? .passed : .failed,
            expected: expectedText(count), observed: "\(value)", evidence: evidence)
    }

    /// A yes/no verdict: passed when the property's truth is `wanted`; `problems` say why it does not hold.
    func holds(_ key: String, _ wanted: Bool, problems: [String], judged: String) -> Verdict {
        let truth = problems.isEmpty
        let observed = truth ? "true (\(judged))" : "false (\(problems.count) of \(judged) not)"
        return Verdict(
            key: key, status: truth == wanted ? .passed : .failed, expected: "\(wanted)", observed: observed,
            evidence: Evidence.capped(problems))
    }

    private func wallTime(_ key: String, max: Duration) -> Verdict {
        Verdict(
            key: key, status: observation.wallTime <= max ? .passed : .failed,
            expected: "≤ \(ScenarioOracle.seconds(max))", observed: ScenarioOracle.seconds(observation.wallTime))
    }

    private func expectedText(_ count: Expectation.Count) -> String {
        if case .all = count { return "all (\(total))" }
        return count.description
    }

    private func expectedText(_ expectation: Expectation) -> String {
        switch expectation {
        case .serverObjectsIntact(let wanted), .serverResourceIDsRecorded(let wanted): "\(wanted)"
        default: ""
        }
    }

    /// How evidence names a job: `job-3 (photo-2)`, the asset's name when known, else its id.
    func name(_ job: JobHistory) -> String {
        "\(job.localID) (\(assets[job.assetID]?.name ?? job.assetID))"
    }

    /// How evidence names a job it knows by id only (an extension's conduct record): as `name(_:)` does, its id
    /// when the ledger lacks it, `a job` without one.
    func name(of id: JobID?) -> String {
        guard let id else { return "a job" }
        return jobs.first { $0.localID == id }.map(name) ?? "\(id)"
    }

    /// The faults the proxy fired, as evidence lines for verdicts whose counts they explain.
    var faultEvidence: [String] {
        Evidence.capped(observation.transcript.faultsFired().map { Evidence.fault($0.fault, $0.connection, $0.time) })
    }
}
