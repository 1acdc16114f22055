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

    /// `no-job-lost`: every asset of the run (added ones included) is accounted for: a job of it succeeded and
    /// (with the server's state) a complete upload on the server has its SHA-256; or its last job failed, with the
    /// error recorded, or was cancelled; or its last job is still held; or it has no job yet while the extension's
    /// last invocation did not complete (the asset waits in its queue). And no complete upload on the server has a
    /// SHA-256 that matches no asset (a corrupted object). Without the server's state only the client's side is
    /// judged, and the verdict says so.
    func noJobLost(_ key: String, _ wanted: Bool) -> Verdict {
        let uploads = observation.serverUploads
        let complete = (uploads ?? []).filter(\.complete)
        let stored = Set(complete.compactMap(\.sha256))
        var problems: [String] = []
        // An extension whose last invocation did not complete still has work queued: an asset without a job is
        // held by it for the next invocation (in-process clients only report their invocations).
        let pending = observation.processJobsResults.last.map { $0 != "completed" } ?? false
        for asset in observation.assets {
            let histories = observation.ledger.histories(forAsset: asset.assetID)
            guard let last = histories.last else {
                if !pending { problems.append("\(asset.name): no job was ever created for it") }
                continue
            }
            if let succeeded = histories.last(where: { $0.state == .succeeded }) {
                if uploads != nil, !stored.contains(asset.sha256) {
                    problems.append(
                        "\(name(succeeded)) succeeded, but no complete upload on the server has its sha256 "
                            + asset.sha256)
                }
                continue
            }
            if last.state == .failed && last.errors.isEmpty {
                problems.append("\(name(last)): failed with no error recorded")
            }
        }
        let digests = Set(observation.assets.map(\.sha256))
        for upload in complete where !digests.contains(upload.sha256 ?? "") {
            problems.append(
                "upload \(upload.id): complete with sha256 \(upload.sha256 ?? "none"), which matches no asset (corrupted)"
            )
        }
        let judged =
            "\(observation.assets.count) assets"
            + (uploads == nil ? "; the server's copies not judged: \(observation.noServerState)" : "")
        return holds(key, wanted, problems: problems, judged: judged)
    }

    /// `no-avoidable-duplicates`: no asset has two complete copies on the server that the client both knew of (it
    /// had recorded their `Location`s, so it could have resumed or asked instead of starting over). A copy the
    /// client never learned of (its 104 and final response lost: a stripped 104, a cut before they arrived) makes
    /// a second copy legitimate: the client cannot reconcile an upload it never heard of.
    func noAvoidableDuplicates(_ key: String, _ wanted: Bool) -> Verdict {
        let complete = (observation.serverUploads ?? []).filter(\.complete)
        let known = Set(
            jobs.flatMap { job in
                job.entries.compactMap { entry -> String? in
                    guard case .uploadResource(let location) = entry.event else { return nil }
                    return location.split(separator: "/").last.map(String.init)
                }
            })
        var problems: [String] = []
        for (sha, uploads) in Dictionary(grouping: complete, by: { $0.sha256 ?? "" }).sorted(by: { $0.key < $1.key })
        where uploads.count > 1 {
            let knownCopies = uploads.filter { known.contains($0.id) }.map(\.id)
            if knownCopies.count > 1 {
                let asset = observation.assets.first { $0.sha256 == sha }?.name ?? "sha256 \(sha)"
                problems.append(
                    "\(asset): \(uploads.count) complete copies, of which the client knew \(knownCopies.joined(separator: ", "))"
                        + " and still uploaded again")
            }
        }
        return holds(key, wanted, problems: problems, judged: "\(complete.count) complete uploads")
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
