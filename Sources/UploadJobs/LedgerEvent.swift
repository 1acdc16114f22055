/// One thing that happened to a job, as its ledger history keeps it.
public enum LedgerEvent: Hashable, Sendable {
    /// The job entered `state` (registered on creation and retry, pending, succeeded, failed, cancelled).
    case state(JobState)
    /// A transfer began; `number` counts from 1 (1 + retries so far).
    case attempt(number: Int)
    /// An automatic resume from `offset` (not a retry).
    case resumed(offset: Int64)
    /// A request body carried these bytes.
    case bytesSent(ByteRange)
    /// The server announced the upload resource at `location`.
    case uploadResource(location: String)
    /// The final response was 2xx with `status`.
    case succeeded(status: Int)
    /// The transfer failed with `error`, and the final response's status when there was one.
    case failed(error: JobError, status: Int?)
    /// The extension retried the job (`number` counts from 1); `newDestination` when it replaced the request.
    case retried(number: Int, newDestination: Bool)
    /// The job left the store: by `acknowledge`, or automatically after `cancel`.
    case acknowledged(automatic: Bool)
    /// The server's id for the resource, from a response's `x-server-resource-id` or recorded by a caller.
    case serverResourceID(String)
}

/// A ledger event and when it happened (the time of the change block that made it).
///
/// JSON is one flat object, the event named by `event` and its values beside it (the report schema,
/// `Scenarios/report.schema.json`, documents each shape):
///
/// ```json
/// {"time": 1796166190309, "event": "state", "state": "registered"}
/// {"time": 1796166190310, "event": "attempt", "number": 1}
/// {"time": 1796166190384, "event": "bytesSent", "offset": 0, "length": 262144}
/// {"time": 1796166190389, "event": "failed", "error": "cannotConnectToHost", "status": null}
/// ```
public struct LedgerEntry: Hashable, Sendable, Codable {
    public var time: JobTime
    public var event: LedgerEvent

    public init(time: JobTime, event: LedgerEvent) {
        self.time = time
        self.event = event
    }
}
