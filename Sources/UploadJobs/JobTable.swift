/// The jobs the store holds and the counters that go with them; the part of the store a change block copies.
///
/// `apply` is the one place where a change is checked and made, for live change blocks and for journal replay
/// alike. Limits (in-flight, retry) are checked only for live changes: a replayed change was within the limits
/// in force when it was committed, and the configuration may have changed since.
struct JobTable: Hashable, Sendable, Codable {
    /// Held jobs by id: registered, pending, succeeded and failed ones (each holds one in-flight slot).
    private(set) var jobs: [JobID: UploadJob] = [:]
    /// The number the next created job gets.
    private(set) var nextNumber = 1
    /// The most jobs held at once so far.
    private(set) var peakInFlight = 0

    /// Jobs for `action` in creation order.
    func fetch(_ action: JobAction, retryLimit: Int) -> [UploadJob] {
        jobs.values.filter { action.matches($0, retryLimit: retryLimit) }.sorted { $0.localID < $1.localID }
    }

    /// Checks `change` against the store and makes it, or throws and changes nothing.
    mutating func apply(
        _ change: JobChange, limits: JobStoreConfiguration?
    ) throws(JobStoreError) {
        switch change {
        case .created(let job):
            try create(job, limits: limits)
        case .started(let id):
            var job = try held(id, in: [.registered], for: "start")
            job.state = .pending
            job.attemptCount += 1
            jobs[id] = job
        case .succeeded(let id, let status, let headers):
            try finish(id, status: status, headers: headers, error: nil)
        case .failed(let id, let error, let status, let headers):
            try finish(id, status: status, headers: headers, error: error)
        case .retried(let id, let destination):
            try retry(id, destination: destination, limits: limits)
        case .acknowledged(let id):
            _ = try held(id, in: [.succeeded, .failed], for: "acknowledge")
            jobs[id] = nil
        case .cancelled(let id):
            _ = try held(id, in: [.registered, .pending], for: "cancel")
            jobs[id] = nil
        case .recorded(let id, let event):
            _ = try held(id, in: event.allowedStates, for: "record \(event)")
            if let problem = event.problem { throw JobStoreError(.invalidEvent, job: id, "\(id): \(problem)") }
        }
    }

    private mutating func create(_ job: UploadJob, limits: JobStoreConfiguration?) throws(JobStoreError) {
        let id = job.localID
        guard id.number == nextNumber, job.state == .registered, job.attemptCount == 0, job.retryCount == 0 else {
            throw JobStoreError(
                .replayMismatch, job: id, "created \(id) in state \(job.state); expected job-\(nextNumber)")
        }
        guard (job.type == .upload) == (job.destination != nil) else {
            throw JobStoreError(
                .invalidDestination, job: id,
                "\(job.type) job \(id) for \(job.assetID) "
                    + (job.destination == nil ? "needs a destination" : "takes no destination"))
        }
        if let limits, jobs.count >= limits.inFlightLimit {
            throw JobStoreError(
                .limitExceeded, job: nil,
                "cannot create a job for \(job.assetID): \(jobs.count) of \(limits.inFlightLimit) slots in use")
        }
        jobs[id] = job
        nextNumber += 1
        peakInFlight = max(peakInFlight, jobs.count)
    }

    private mutating func finish(
        _ id: JobID, status: Int?, headers: [HeaderField], error: JobError?
    ) throws(JobStoreError) {
        let action = error.map { "fail with \($0.rawValue)" } ?? "succeed"
        var job = try held(id, in: [.pending], for: action)
        let success = status.map { 200..<300 ~= $0 } ?? false
        guard status.map({ 100..<600 ~= $0 }) ?? true, success == (error == nil) else {
            let shown = status.map(String.init) ?? "none"
            throw JobStoreError(
                .invalidResponse, job: id,
                "\(id) cannot \(action) with status \(shown)")
        }
        job.state = error == nil ? .succeeded : .failed
        job.error = error
        job.httpStatus = status
        job.responseHeaderFields = headers.map(\.lowercased)
        jobs[id] = job
    }

    private mutating func retry(
        _ id: JobID, destination: UploadDestination?, limits: JobStoreConfiguration?
    ) throws(JobStoreError) {
        var job = try held(id, in: [.failed], for: "retry")
        if destination != nil && job.type == .downloadOnly {
            throw JobStoreError(.invalidDestination, job: id, "download-only \(id) takes no destination")
        }
        if let limits {
            guard job.retryCount < limits.retryLimit else {
                throw JobStoreError(
                    .retryLimitReached, job: id,
                    "\(id) has used \(job.retryCount) of \(limits.retryLimit) retries; acknowledge it instead")
            }
            guard jobs.count - 1 < limits.inFlightLimit else {
                throw JobStoreError(
                    .limitExceeded, job: id,
                    "cannot retry \(id): \(jobs.count - 1) other jobs hold the \(limits.inFlightLimit) slots")
            }
        }
        job.state = .registered
        job.retryCount += 1
        job.destination = destination ?? job.destination
        job.error = nil
        job.httpStatus = nil
        job.responseHeaderFields = []
        jobs[id] = job
    }

    /// The held job `id`, which must be in one of `states` for `action`.
    private func held(_ id: JobID, in states: [JobState], for action: String) throws(JobStoreError) -> UploadJob {
        guard let job = jobs[id] else {
            throw JobStoreError(.notFound, job: id, "cannot \(action) \(id): no such job in the store")
        }
        guard states.contains(job.state) else {
            let allowed = states.map(\.rawValue).joined(separator: " or ")
            throw JobStoreError(
                .invalidTransition, job: id,
                "cannot \(action) \(id): it is \(job.state.rawValue), not \(allowed)")
        }
        return job
    }
}
