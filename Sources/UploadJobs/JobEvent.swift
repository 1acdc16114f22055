/// What the transfer side tells the ledger about a job beyond its state changes.
///
/// These go through a change block like any other change (`JobChangeBlock.record` or `JobStore.record`), so the
/// journal makes them durable and the ledger gets them in order.
public enum JobEvent: Hashable, Sendable, Codable {
    /// An automatic resume after an interruption (offset retrieval, then append from `offset`). Not a retry.
    /// Allowed while the job is pending.
    case resumed(offset: Int64)
    /// A request body carried these bytes (creation or append). Allowed while the job is pending.
    case bytesSent(ByteRange)
    /// The server announced the upload resource at `location` (a 104's `Location`): what a relaunched system
    /// resumes a transfer it left in flight from. Allowed while the job is pending.
    case uploadResource(location: String)
    /// The server's id for the uploaded resource (`x-server-resource-id`), recorded by the extension before it
    /// acknowledges, or by the transfer side when a response carries it. Allowed in any state the store holds.
    case serverResourceID(String)

    /// The states in which the event may be recorded.
    var allowedStates: [JobState] {
        switch self {
        case .resumed, .bytesSent, .uploadResource: [.pending]
        case .serverResourceID: [.registered, .pending, .succeeded, .failed]
        }
    }

    /// Why the event's values are impossible, or nil when they are fine.
    var problem: String? {
        switch self {
        case .resumed(let offset):
            offset < 0 ? "resume offset \(offset) is negative" : nil
        case .bytesSent(let range):
            range.offset < 0 || range.length < 0 ? "byte range \(range.offset)+\(range.length) is negative" : nil
        case .serverResourceID(let id):
            id.isEmpty ? "the server resource id is empty" : nil
        case .uploadResource(let location):
            location.isEmpty ? "the upload resource location is empty" : nil
        }
    }
}
