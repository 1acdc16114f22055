import Scenario
import UploadJobs

/// The expectations judged from the client's ledger (`spec/upload-jobs.md`).
extension OracleContext {
    /// `jobs.<state>`: jobs whose final state is `state` (an acknowledged job keeps its last state).
    func jobStates(_ key: String, state: String, _ count: Expectation.Count) -> Verdict {
        let matching = jobs.filter { $0.state.rawValue == state }
        var verdict = counted(key, count, Int64(matching.count), evidence: [])
        if verdict.status == .failed {
            verdict.evidence =
                Evidence.capped(jobs.map { "\(name($0)): \($0.state.rawValue)" }) + unannouncedCutEvidence
                + defaultPermanenceNotes
        }
        return verdict
    }

    /// `acknowledged-once`: every job in the ledger has exactly one acknowledgement.
    func acknowledgedOnce(_ key: String, _ wanted: Bool) -> Verdict {
        let problems = jobs.compactMap { job -> String? in
            let count = job.entries.count { if case .acknowledged = $0.event { true } else { false } }
            return count == 1 ? nil : "\(name(job)): acknowledged \(count) times"
        }
        return holds(key, wanted, problems: problems, judged: "\(jobs.count) jobs")
    }

    /// `acknowledged-at-most-once`: no job in the ledger has two acknowledgements (a job may still be held).
    func acknowledgedAtMostOnce(_ key: String, _ wanted: Bool) -> Verdict {
        let problems = jobs.compactMap { job -> String? in
            let count = job.entries.count { if case .acknowledged = $0.event { true } else { false } }
            return count <= 1 ? nil : "\(name(job)): acknowledged \(count) times"
        }
        return holds(key, wanted, problems: problems, judged: "\(jobs.count) jobs")
    }

    /// `attempts`, `retries`: every job's `measure` within `count`; the evidence names the jobs outside it.
    func perJob(
        _ key: String, _ count: Expectation.Count, noun: String, _ measure: (JobHistory) -> Int
    ) -> Verdict {
        let values = jobs.map { Int64(measure($0)) }
        let outside = zip(jobs, values).filter { !count.accepts($0.1, total: total) }
        let observed =
            if let low = values.min(), let high = values.max() {
                low == high ? "\(low) per job" : "\(low)…\(high) per job"
            } else {
                "no jobs"
            }
        let evidence = outside.map { "\(name($0.0)): \($0.1) \(noun)" }
        return Verdict(
            key: key, status: outside.isEmpty ? .passed : .failed, expected: "\(count) per job", observed: observed,
            evidence: outside.isEmpty ? [] : Evidence.capped(evidence) + causeEvidence)
    }

    /// `retry-limit-respected`: no job retried more than the client's retry limit.
    func retryLimitRespected(_ key: String, _ wanted: Bool) -> Verdict {
        let limit = scenario.client.retryLimit
        let problems = jobs.filter { $0.retries > limit }.map {
            "\(name($0)): \($0.retries) retries, limit \(limit)"
        }
        return holds(key, wanted, problems: problems, judged: "\(jobs.count) jobs")
    }

    /// `resumptions`: automatic resumes over all jobs; the evidence lists each job's resume offsets.
    func resumptions(_ key: String, _ count: Expectation.Count) -> Verdict {
        let resumed = jobs.filter { !$0.resumeOffsets.isEmpty }
        let total = resumed.reduce(0) { $0 + Int64($1.resumeOffsets.count) }
        let evidence = resumed.map { job in
            "\(name(job)): resumed at \(job.resumeOffsets.map(String.init).joined(separator: ", "))"
        }
        return withFaults(counted(key, count, total, evidence: Evidence.capped(evidence)))
    }

    /// `retransmitted-bytes`: the bytes the client's ledger says it sent in request bodies beyond each asset's
    /// size, per job (never below 0), summed over jobs.
    ///
    /// A job's bytes sent are the lengths of every `bytesSent` range of every attempt, retries and automatic
    /// resumes included, overlapping or not. A range is what the client wrote to its socket, so after a cut it may
    /// exceed what the server received (bytes in flight when the connection was reset were dropped and sent
    /// again): this counts the client's writes, not bytes the server received twice. A job resumed at 400 after
    /// sending 0..<500 of 1000 bytes sent 1100 and counts 100; a job that never sent its whole asset counts 0 however
    /// much of it it re-sent. An asset of unknown size counts the distinct bytes the job sent as its size (so the
    /// overlap of its ranges).
    func retransmittedBytes(_ key: String, _ count: Expectation.Count) -> Verdict {
        let extra = jobs.map { job -> Int64 in
            let sent = job.byteRanges.reduce(0) { $0 + $1.length }
            return max(0, sent - (assets[job.assetID]?.size ?? distinctBytes(job.byteRanges)))
        }
        let evidence = zip(jobs, extra).filter { $0.1 > 0 }.map { "\(name($0.0)): \($0.1) bytes sent again" }
        return withFaults(counted(key, count, extra.reduce(0, +), evidence: Evidence.capped(evidence)))
    }

    /// `restarts-from-zero`: per job, byte ranges starting at 0 after the first one, summed; a resume at offset 0 (a
    /// HEAD that reported 0, then an append from it: the server kept the upload, with none of its bytes) is a
    /// resume, not a restart.
    func restartsFromZero(_ key: String, _ count: Expectation.Count) -> Verdict {
        let restarts = jobs.map { job -> Int64 in
            var ranges = 0
            var restarts: Int64 = 0
            var resumedAt: Int64?
            for entry in job.entries {
                switch entry.event {
                case .resumed(let offset): resumedAt = offset
                case .bytesSent(let range):
                    if range.offset == 0, ranges > 0, resumedAt != 0 { restarts += 1 }
                    ranges += 1
                    resumedAt = nil
                default: continue
                }
            }
            return restarts
        }
        let evidence = zip(jobs, restarts).filter { $0.1 > 0 }.map { "\(name($0.0)): \($0.1) restarts from byte 0" }
        return withFaults(counted(key, count, restarts.reduce(0, +), evidence: Evidence.capped(evidence)))
    }

    /// `job-errors.<code>`: failures with error `code` over all jobs.
    func jobErrors(_ key: String, code: String, _ count: Expectation.Count) -> Verdict {
        let failures = jobs.map { job in Int64(job.errors.count { $0.rawValue == code }) }
        let evidence = zip(jobs, failures).filter { $0.1 > 0 }.map { "\(name($0.0)): \($0.1) × \(code)" }
        return withFaults(counted(key, count, failures.reduce(0, +), evidence: Evidence.capped(evidence)))
    }

    /// `verdict` with the faults fired and the other causes (`causeEvidence`) added to its evidence when it failed.
    private func withFaults(_ verdict: Verdict) -> Verdict {
        guard verdict.status == .failed else { return verdict }
        var verdict = verdict
        verdict.evidence += causeEvidence
        return verdict
    }

    /// How many distinct bytes `ranges` cover.
    private func distinctBytes(_ ranges: [ByteRange]) -> Int64 {
        var covered: Int64 = 0
        var reach: Int64 = 0
        for range in ranges.sorted(by: { $0.offset < $1.offset }) where range.end > reach {
            covered += range.end - max(range.offset, reach)
            reach = range.end
        }
        return covered
    }
}
