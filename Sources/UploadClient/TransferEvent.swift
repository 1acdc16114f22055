import ResumableUpload

/// Something that happened during a transfer, reported to its observer in order, for the job ledger.
///
/// Automatic resumes are transfer events, not job retries: one job attempt may hold several `resumeAttempt`s.
public enum TransferEvent: Sendable, Hashable {
    /// The transfer goes on with an earlier transfer's upload resource (`TransferConfiguration.resumeLocation`):
    /// HEAD asks it for its offset, instead of a preflight and a creation.
    case reconciling(location: String)
    /// The server no longer knows the earlier upload resource (404 or 410 to the reconciling HEAD): the transfer
    /// starts over with a creation from byte 0.
    case restartedFromZero
    /// The OPTIONS preflight answered (or its cached answer was used) for the creation endpoint.
    case preflight(PreflightResult)
    /// A request went out: its method, the upload offset its content starts at, and its content length.
    case requestStarted(method: String, offset: Int64, length: Int64)
    /// `count` bytes of content starting at upload offset `offset` were written to the connection.
    case bytesSent(offset: Int64, count: Int)
    /// A 104 of the transfer's interop version arrived: its `Location` (creation only) and progress offset.
    case interimReceived(location: String?, offset: Int64?)
    /// The request in flight failed (a reset, a timeout, a 5xx to HEAD) with `highestSent` bytes sent: an
    /// automatic resume follows.
    case interrupted(at: Int64, TransferError)
    /// Automatic resume attempt `n` (1-based) begins, after the backoff delay.
    case resumeAttempt(Int)
    /// The server holds fewer bytes than were sent: sending resumes at `to` instead of `from`.
    case backtrack(from: Int64, to: Int64)
    /// The last byte of the upload was sent; the final response is awaited ("finalising").
    case finalising
    /// The final response to a request arrived, with its status.
    case finalResponse(method: String, status: Int)
    /// The server did not process a request (its HTTP/2 stream was above a `GOAWAY`'s last stream, or refused): it is
    /// sent again on a new connection, and is not an interruption.
    case requestRetried(method: String, reason: String)
    /// The upload resource was cancelled with DELETE (the upload failed and cannot go on).
    case deleteSent(location: String)
    /// An answer of the server departs from the draft at the request's interop version (`ServerConformance`):
    /// the request (`PATCH /upload/7`), the answer's status (nil when none came) and the deviation.
    case serverDeviation(request: String, status: Int?, ConformanceDeviation)
}
