/// One job's full history: its identity and every ledger entry in order, with accessors for what a scenario
/// asserts (states, attempts, retries, resumes, byte ranges, errors, statuses, acknowledgement, resource id).
public struct JobHistory: Hashable, Sendable, Codable {
    public let localID: JobID
    public let assetID: String
    public let type: JobType
    /// Every entry, oldest first.
    public private(set) var entries: [LedgerEntry]

    init(job: UploadJob, at time: JobTime) {
        self.localID = job.localID
        self.assetID = job.assetID
        self.type = job.type
        self.entries = [LedgerEntry(time: time, event: .state(.registered))]
    }

    /// The latest state (cancelled and acknowledged jobs keep their last state here).
    public var state: JobState {
        for entry in entries.reversed() {
            if case .state(let state) = entry.event { return state }
        }
        return .registered
    }

    /// Each state the job entered, with its time, oldest first.
    public var stateChanges: [(state: JobState, time: JobTime)] {
        entries.compactMap { entry in
            guard case .state(let state) = entry.event else { return nil }
            return (state, entry.time)
        }
    }

    /// Transfers begun (1 + retries at most).
    public var attempts: Int {
        entries.count { if case .attempt = $0.event { true } else { false } }
    }

    /// Retries by the extension.
    public var retries: Int {
        entries.count { if case .retried = $0.event { true } else { false } }
    }

    /// The offsets of automatic resumes, in order.
    public var resumeOffsets: [Int64] {
        entries.compactMap { if case .resumed(let offset) = $0.event { offset } else { nil } }
    }

    /// Every byte range sent, in order.
    public var byteRanges: [ByteRange] {
        entries.compactMap { if case .bytesSent(let range) = $0.event { range } else { nil } }
    }

    /// The error of every failure, in order.
    public var errors: [JobError] {
        entries.compactMap { if case .failed(let error, _) = $0.event { error } else { nil } }
    }

    /// The final status of every response that ended an attempt, in order.
    public var statuses: [Int] {
        entries.compactMap { entry in
            switch entry.event {
            case .succeeded(let status): status
            case .failed(_, let status): status
            default: nil
            }
        }
    }

    /// When the job left the store, or nil while it is held.
    public var acknowledgedAt: JobTime? {
        entries.last { if case .acknowledged = $0.event { true } else { false } }?.time
    }

    /// The upload resource the server announced last, if any.
    public var uploadResource: String? {
        entries.compactMap { if case .uploadResource(let location) = $0.event { location } else { nil } }.last
    }

    /// The latest server resource id recorded, if any.
    public var serverResourceID: String? {
        entries.compactMap { if case .serverResourceID(let id) = $0.event { id } else { nil } }.last
    }

    mutating func append(_ event: LedgerEvent, at time: JobTime) {
        entries.append(LedgerEntry(time: time, event: event))
    }
}
