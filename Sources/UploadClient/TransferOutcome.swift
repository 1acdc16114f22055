/// How a transfer ended: succeeded, failed or cancelled, with what the server last said.
///
/// `status` and `headerFields` come from the final response that decided the outcome (names lower-cased, repeated
/// fields joined with ", " as RFC 9110 §5.3 allows); both are empty when no final response came.
public struct TransferOutcome: Sendable, Hashable {
    /// The verdict.
    public enum Result: Sendable, Hashable {
        /// A 2xx final response to the request that completed the upload (or, after a lost final response, an
        /// offset retrieval that reported the upload complete: see `completionConfirmedByOffsetRetrieval`).
        case succeeded
        /// The transfer failed; the error's code says whether a retry may help.
        case failed(TransferError)
        /// The owner cancelled the transfer.
        case cancelled
    }

    public var result: Result
    /// The status of the deciding final response; nil when there was none.
    public var status: Int?
    /// The deciding final response's fields, names lower-cased.
    public var headerFields: [String: String]
    /// The upload resource's URL, when the server announced one.
    public var location: String?
    /// How many automatic resumes were attempted.
    public var resumeAttempts: Int
    /// Whether the upload went the resumable way (an interop version, and not refused by the preflight).
    public var resumable: Bool
    /// What an offset retrieval after a cancellation reported; nil when none was possible or it failed.
    public var serverState: ServerUploadState?
    /// True when the final response was lost and an offset retrieval (HEAD) reported the upload complete.
    public var completionConfirmedByOffsetRetrieval: Bool

    public init(
        result: Result, status: Int? = nil, headerFields: [String: String] = [:], location: String? = nil,
        resumeAttempts: Int = 0, resumable: Bool = false, serverState: ServerUploadState? = nil,
        completionConfirmedByOffsetRetrieval: Bool = false
    ) {
        self.result = result
        self.status = status
        self.headerFields = headerFields
        self.location = location
        self.resumeAttempts = resumeAttempts
        self.resumable = resumable
        self.serverState = serverState
        self.completionConfirmedByOffsetRetrieval = completionConfirmedByOffsetRetrieval
    }

    /// The error when the transfer failed.
    public var error: TransferError? {
        if case .failed(let error) = result { return error }
        return nil
    }
}

/// An upload resource's state as an offset retrieval (HEAD) reported it.
public struct ServerUploadState: Sendable, Hashable {
    /// The bytes the server holds (`Upload-Offset`).
    public var offset: Int64
    /// Whether the upload is complete (`Upload-Complete: ?1`, or `Upload-Incomplete: ?0` in interop 3).
    public var complete: Bool

    public init(offset: Int64, complete: Bool) {
        self.offset = offset
        self.complete = complete
    }
}
