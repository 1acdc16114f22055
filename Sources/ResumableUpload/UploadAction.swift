import HTTPWire

/// What the owner of an upload's connections must do, in order, after an event of `UploadResourceStateMachine`.
public enum UploadAction: Sendable, Hashable {
    /// Send this 104 (the creation announcement or a progress report); the final response follows later.
    case sendInterim(ResponseHead)
    /// Append the first `count` bytes of the chunk just received at the upload's offset (fewer than received when
    /// a limit cuts the chunk).
    case write(count: Int64)
    /// Make the data durable up to `offset` and record it: done before any response acknowledges that offset.
    case persist(offset: Int64)
    /// Cut the bytes the running request wrote, back to `offset` (where it started), and make that durable: its
    /// content did not prove itself against its `Content-Digest` (a mismatch, or a body that never ended).
    case rewind(to: Int64)
    /// The upload is complete with `length` bytes: hand it to the target resource.
    case finalize(length: Int64)
    /// Send this final response; the request is over.
    case send(UploadResponse)
    /// The request is rejected: send `response`.
    case reject(UploadProtocolError, UploadResponse)
    /// Abort the request still running on this resource on another connection: its client gave up on it (§3.9).
    /// It comes after the `persist` or `rewind` that settles what that request wrote.
    case abortActiveRequest
    /// Close this request's connection after the response: its body was not read to the end.
    case closeConnection
    /// Delete the upload's data: it was cancelled or has expired.
    case discard
}
