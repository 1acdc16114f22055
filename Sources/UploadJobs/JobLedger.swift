/// Every job's history, kept after the store forgets the job (acknowledgement, cancellation).
///
/// The ledger is a function of the committed changes: the store feeds it each change block's changes, so a
/// journal that replays the changes rebuilds it exactly. Transfer-side facts (automatic resumes, byte ranges,
/// server resource ids) arrive as `JobEvent`s through a change block. It grows with every job ever
/// created; it is meant for a harness run, not a device's lifetime. Codable: JSON is `{"jobs": [history…]}` in
/// creation order.
public struct JobLedger: Hashable, Sendable, Codable {
    private var histories: [JobID: JobHistory] = [:]

    public init() {}

    /// The history of job `id`, if it was ever created.
    public subscript(id: JobID) -> JobHistory? {
        histories[id]
    }

    /// Every history in creation order.
    public var all: [JobHistory] {
        histories.values.sorted { $0.localID < $1.localID }
    }

    /// The histories of every job made for `assetID`, in creation order.
    public func histories(forAsset assetID: String) -> [JobHistory] {
        all.filter { $0.assetID == assetID }
    }

    /// Adds the entries for one committed change block.
    mutating func apply(_ changes: [JobChange], at time: JobTime) {
        for change in changes {
            apply(change, at: time)
        }
    }

    private mutating func apply(_ change: JobChange, at time: JobTime) {
        let id = change.jobID
        if case .created(let job) = change {
            histories[id] = JobHistory(job: job, at: time)
            return
        }
        for event in Self.events(for: change, history: histories[id]) {
            histories[id]?.append(event, at: time)
        }
    }

    /// The ledger events one (non-creation) change makes.
    private static func events(for change: JobChange, history: JobHistory?) -> [LedgerEvent] {
        switch change {
        case .created:
            []
        case .started:
            [.state(.pending), .attempt(number: (history?.attempts ?? 0) + 1)]
        case .succeeded(_, let status, let headers):
            [.succeeded(status: status), .state(.succeeded)] + resourceID(in: headers)
        case .failed(_, let error, let status, let headers):
            [.failed(error: error, status: status), .state(.failed)] + resourceID(in: headers)
        case .retried(_, let destination):
            [.retried(number: (history?.retries ?? 0) + 1, newDestination: destination != nil), .state(.registered)]
        case .acknowledged:
            [.acknowledged(automatic: false)]
        case .cancelled:
            [.state(.cancelled), .acknowledged(automatic: true)]
        case .recorded(_, .resumed(let offset)):
            [.resumed(offset: offset)]
        case .recorded(_, .bytesSent(let range)):
            [.bytesSent(range)]
        case .recorded(_, .uploadResource(let location)):
            [.uploadResource(location: location)]
        case .recorded(_, .serverResourceID(let id)):
            [.serverResourceID(id)]
        }
    }

    /// A `serverResourceID` event when the response fields carry `x-server-resource-id`.
    private static func resourceID(in headers: [HeaderField]) -> [LedgerEvent] {
        headers.value(named: "x-server-resource-id").map { [.serverResourceID($0)] } ?? []
    }

    private enum CodingKeys: String, CodingKey {
        case jobs
    }

    public init(from decoder: any Decoder) throws {
        let list = try decoder.container(keyedBy: CodingKeys.self).decode([JobHistory].self, forKey: .jobs)
        histories = Dictionary(list.map { ($0.localID, $0) }, uniquingKeysWith: { _, last in last })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(all, forKey: .jobs)
    }
}
