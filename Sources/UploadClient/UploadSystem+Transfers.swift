import Foundation
import HTTPWire
import ResumableUpload
import Synchronization
import UploadJobs

extension UploadSystem {
    /// Jobs a killed run left pending: resumed from their upload resource when a 104 had announced one (the
    /// transfer asks the server with HEAD first), else failed with `networkConnectionLost`, a transient error the
    /// extension retries from byte 0. No job is lost, none is run twice at once.
    func reconcile() throws {
        for job in store.jobs where job.state == .pending {
            if isTerminated { return }
            if let location = ledger[job.localID]?.uploadResource {
                try launch(job, resumeLocation: location)
            } else {
                try journal.performChanges(at: now()) { block in
                    try block.fail(job.localID, error: .networkConnectionLost)
                }
            }
        }
    }

    /// Starts a transfer for every registered job, and cancels transfers whose job the extension cancelled. A
    /// retried job whose earlier attempt was announced with a 104 resumes that upload resource (HEAD first: a
    /// complete upload succeeds, a forgotten one starts over), so a retry never stores the file twice. A retried
    /// job's transfer begins after `retryDelay(for:)`, so the retries of a job whose server is down are spread
    /// out rather than spent back to back. Download-only jobs (the resource is only brought onto the device, model
    /// choice: it always is) succeed at once, with no request.
    func startTransfers() throws {
        let held = Set(store.jobs.map(\.localID))
        for (id, transfer) in transfers.withLock({ $0 }) where !held.contains(id) { transfer.cancel() }
        let downloads = store.jobs.filter { $0.state == .registered && $0.type == .downloadOnly }
        if !downloads.isEmpty {
            try journal.performChanges(at: now()) { block in
                for job in downloads {
                    try block.start(job.localID)
                    try block.succeed(job.localID, status: 200)
                }
            }
        }
        for job in store.jobs where job.state == .registered && job.type == .upload {
            if isTerminated { return }
            try journal.performChanges(at: now()) { try $0.start(job.localID) }
            try launch(job, resumeLocation: ledger[job.localID]?.uploadResource, after: retryDelay(for: job))
        }
    }

    /// The wait before a job's next transfer: none for its first attempt; before retry n the transfer's backoff
    /// before attempt n (`TransferConfiguration.backoff(beforeAttempt:)`: `backoffBase` × 2^(n−1), at most
    /// `backoffLimit`, shortened to at most 1 s in developer mode but never removed).
    func retryDelay(for job: UploadJob) -> Duration {
        guard job.retryCount > 0 else { return .zero }
        return transferConfiguration.backoff(beforeAttempt: job.retryCount)
    }

    /// The transfers' configuration, in developer mode when the system is.
    var transferConfiguration: TransferConfiguration {
        var settings = configuration.transfer
        if configuration.developerMode { settings.developerMode = true }
        return settings
    }

    /// Runs the job's transfer on its own thread, after waiting `delay` (a retry's backoff; cut short when the
    /// system is terminated); its end is recorded in the journal and wakes `run`.
    private func launch(_ job: UploadJob, resumeLocation: String?, after delay: Duration = .zero) throws {
        guard let destination = job.destination else { return }
        var settings = transferConfiguration
        settings.method = HTTPMethod(rawValue: destination.method)
        settings.headerFields = HTTPFields(destination.headerFields.map { HTTPField(name: $0.name, value: $0.value) })
        settings.resumeLocation = resumeLocation
        let size = (try? FileManager.default.attributesOfItem(atPath: job.assetID)[.size] as? NSNumber)?.int64Value ?? 0
        let recorder = LedgerRecorder(system: self, job: job.localID, size: size)
        let transfer: UploadTransfer
        do {
            transfer = try UploadTransfer(
                file: job.assetID, to: destination.url, configuration: settings, preflightCache: preflightCache,
                connections: connections,
                sleeper: sleeper, observer: recorder.handle)
        } catch {
            try settle(job.localID, TransferOutcome(result: .failed(error)))
            return
        }
        transfers.withLock { $0[job.localID] = transfer }
        if isTerminated { transfer.abort() }
        observer(.transferStarted(job.localID, assetID: job.assetID, size: size, reconciling: resumeLocation != nil))
        let thread = Thread { [self] in
            if delay > .zero && !isTerminated { sleeper(delay) }
            let outcome = transfer.run()
            recorder.flush()
            // Settled before it leaves the running set: the scheduler, woken by another transfer in between,
            // must not see the job pending with nothing running (it would give up on it).
            do {
                try settle(job.localID, outcome)
            } catch {
                fail(with: error)
            }
            transfers.withLock { if $0[job.localID] === transfer { $0[job.localID] = nil } }
            wake.signal()
        }
        thread.name = "upload-\(job.localID)"
        thread.start()
    }

    /// Records a transfer's end: succeeded on a 2xx, failed with the mapped error otherwise. Nothing when the job
    /// is no longer pending (cancelled by the extension meanwhile), or when the system was terminated and the
    /// transfer only stopped because of it (it stays pending, reconciled on the next run).
    private func settle(_ id: JobID, _ outcome: TransferOutcome) throws {
        guard store.job(id)?.state == .pending else { return }
        if isTerminated, case .cancelled = outcome.result { return }
        let headers = outcome.headerFields.sorted { $0.key < $1.key }.map { HeaderField($0.key, $0.value) }
        // A failure's last response may have been a 2xx (a changed Location, an impossible offset): the job keeps
        // no status then, since a failed job's status is never a success.
        let failedStatus = outcome.status.flatMap { (200..<300).contains($0) ? nil : $0 }
        let state: JobState
        var error: JobError?
        try journal.performChanges(at: now()) { block in
            switch outcome.result {
            case .succeeded:
                try block.succeed(id, status: outcome.status ?? 200, headers: headers)
            case .failed(let failure):
                error = Self.jobError(failure.code)
                try block.fail(id, error: error!, status: failedStatus, headers: headers)
            case .cancelled:
                error = .cancelled
                try block.fail(id, error: .cancelled, status: failedStatus, headers: headers)
            }
        }
        state = error == nil ? .succeeded : .failed
        observer(
            .transferEnded(id, state: state, error: error, status: outcome.status, detail: outcome.error?.explanation))
    }

    /// The job error for a transfer error (the URL error the system would report).
    static func jobError(_ code: TransferError.Code) -> JobError {
        switch code {
        case .timedOut: .timedOut
        case .networkConnectionLost: .networkConnectionLost
        case .cannotConnectToHost: .cannotConnectToHost
        case .userAuthenticationRequired: .userAuthenticationRequired
        case .cancelled: .cancelled
        case .badServerResponse, .secureConnectionFailed, .fileUnreadable, .invalidRequest: .badServerResponse
        }
    }
}

/// Turns one transfer's events into ledger records without a journal commit per chunk: contiguous bytes sent in
/// one request become one byte range, committed when the request ends; the upload resource's Location and each
/// automatic resume are committed as they happen. Used on the transfer's thread only.
final class LedgerRecorder: @unchecked Sendable {
    private let system: UploadSystem
    private let job: JobID
    private let size: Int64
    private var range: ByteRange?
    private var location: String?
    private var resuming = false

    init(system: UploadSystem, job: JobID, size: Int64) {
        self.system = system
        self.job = job
        self.size = size
    }

    func handle(_ event: TransferEvent) {
        switch event {
        case .requestStarted(let method, let offset, _):
            flush()
            if resuming && method == "PATCH" {
                record(.resumed(offset: offset))
                system.observer(.resumed(job, from: offset))
                resuming = false
            }
            range = ByteRange(offset: offset, length: 0)
        case .bytesSent(let offset, let count):
            if let current = range, current.offset + current.length == offset {
                range = ByteRange(offset: current.offset, length: current.length + Int64(count))
            } else {
                flush()
                range = ByteRange(offset: offset, length: Int64(count))
            }
            if let range { system.observer(.progress(job, sent: range.offset + range.length, size: size)) }
        case .interimReceived(let announced, _):
            if let announced, announced != location {
                location = announced
                record(.uploadResource(location: announced))
                system.observer(.uploadResourceAnnounced(job, location: announced))
            }
        case .interrupted(let at, let error):
            system.observer(.interrupted(job, at: at, cause: error.code))
        case .resumeAttempt, .reconciling:
            flush()
            resuming = true
        case .finalising:
            system.observer(.finalising(job))
        case .finalResponse, .backtrack, .deleteSent:
            flush()
        case .serverDeviation(let request, let status, let deviation):
            let answer = status.map(String.init) ?? "no answer"
            system.observer(
                .serverDeviation(job, rule: deviation.rule.rawValue, line: "\(request) → \(answer): \(deviation)"))
        default:
            break
        }
    }

    /// Commits the byte range of the request that just ended, if it carried bytes.
    func flush() {
        guard let current = range else { return }
        range = nil
        if current.length > 0 { record(.bytesSent(current)) }
    }

    private func record(_ event: JobEvent) {
        do {
            try system.journal.record(event, job: job, at: system.now())
        } catch let error as JobStoreError where error.code == .invalidTransition || error.code == .notFound {
            // The job left `pending` meanwhile (the extension cancelled it): nothing to record.
        } catch {
            system.fail(with: error)
        }
    }
}
