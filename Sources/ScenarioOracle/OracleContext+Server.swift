import Scenario
import UploadJobs

/// The expectations judged from the reference server's uploads (skipped without them).
extension OracleContext {
    /// `server-objects-intact`: each succeeded job's asset is on the server exactly once, complete, with the
    /// source's SHA-256; and no two complete uploads share a SHA-256.
    func serverObjectsIntact(_ key: String, _ wanted: Bool) -> Verdict {
        let complete = (observation.serverUploads ?? []).filter(\.complete)
        let bySHA = Dictionary(grouping: complete) { $0.sha256 ?? "" }
        var problems: [String] = []
        var seen = Set<String>()
        let succeeded = jobs.filter { $0.state == .succeeded && seen.insert($0.assetID).inserted }
        for job in succeeded {
            guard let asset = assets[job.assetID] else {
                problems.append("\(name(job)): no digest for asset \(job.assetID)")
                continue
            }
            let copies = bySHA[asset.sha256]?.count ?? 0
            if copies != 1 { problems.append("\(name(job)): \(copies) complete uploads with sha256 \(asset.sha256)") }
        }
        for (sha, uploads) in bySHA.sorted(by: { $0.key < $1.key }) where uploads.count > 1 {
            problems.append("duplicate sha256 \(sha): uploads \(uploads.map(\.id).joined(separator: ", "))")
        }
        let judged = "\(succeeded.count) assets, \(complete.count) complete uploads"
        return holds(key, wanted, problems: problems, judged: judged)
    }

    /// `server-resource-ids-recorded`: every succeeded job recorded the id of an upload the server holds.
    func serverResourceIDsRecorded(_ key: String, _ wanted: Bool) -> Verdict {
        let ids = Set((observation.serverUploads ?? []).map(\.id))
        let succeeded = jobs.filter { $0.state == .succeeded }
        let problems = succeeded.compactMap { job -> String? in
            guard let recorded = job.serverResourceID else { return "\(name(job)): no server resource id recorded" }
            return ids.contains(recorded) ? nil : "\(name(job)): recorded \(recorded), not a server upload"
        }
        return holds(key, wanted, problems: problems, judged: "\(succeeded.count) succeeded jobs")
    }
}
