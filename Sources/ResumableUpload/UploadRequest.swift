/// What a request means under the resumable-upload rules (draft -01 "Request Identification", §3.0 of the
/// digest), as classified by `UploadRequest.classify(_:configuration:)`.
public enum UploadRequest: Sendable, Hashable {
    /// OPTIONS on the creation path (or `*`) from a client speaking `version`: discovery (-05).
    case options(InteropVersion)
    /// A creation: POST or PUT on the creation path carrying the completion field.
    case create(CreationRequest)
    /// HEAD on an upload resource: offset retrieval.
    case offset(id: String, version: InteropVersion)
    /// PATCH on an upload resource: append.
    case append(id: String, AppendRequest)
    /// DELETE on an upload resource: cancellation.
    case cancel(id: String, version: InteropVersion)
    /// Not resumable: no or an unknown interop version, resumability off, or no completion field. Served as an
    /// ordinary request; never a 104, never a 4xx for the version alone.
    case plainUpload
}

/// A creation request (POST or PUT with the completion field).
public struct CreationRequest: Sendable, Hashable {
    public var version: InteropVersion
    /// Whether this request's content is the whole upload (`Upload-Complete: ?1`, `Upload-Incomplete: ?0`).
    public var complete: Bool
    /// `Content-Length`, nil when absent or chunked.
    public var contentLength: Int64?
    /// `Upload-Length` (interop 6+), nil when absent.
    public var uploadLength: Int64?
    /// `Idempotency-Key`, nil when absent.
    public var idempotencyKey: String?
    /// The RFC 9530 digests the request states and asks for.
    public var digests: RequestDigests

    public init(
        version: InteropVersion, complete: Bool, contentLength: Int64? = nil, uploadLength: Int64? = nil,
        idempotencyKey: String? = nil, digests: RequestDigests = RequestDigests()
    ) {
        self.version = version
        self.complete = complete
        self.contentLength = contentLength
        self.uploadLength = uploadLength
        self.idempotencyKey = idempotencyKey
        self.digests = digests
    }

    /// The upload's length as this request states it: `Upload-Length`, or `Content-Length` when complete.
    public var declaredLength: Int64? {
        uploadLength ?? (complete ? contentLength : nil)
    }
}

/// An append request (PATCH on an upload resource with `Upload-Offset`).
public struct AppendRequest: Sendable, Hashable {
    public var version: InteropVersion
    /// `Upload-Offset`: where the content goes.
    public var offset: Int64
    /// Whether this request ends the upload; when the field is absent through interop 6 it does ("last part").
    public var complete: Bool
    /// `Content-Length`, nil when absent or chunked.
    public var contentLength: Int64?
    /// `Upload-Length` (interop 6+), nil when absent.
    public var uploadLength: Int64?
    /// The RFC 9530 digests the request states and asks for.
    public var digests: RequestDigests

    public init(
        version: InteropVersion, offset: Int64, complete: Bool, contentLength: Int64? = nil,
        uploadLength: Int64? = nil, digests: RequestDigests = RequestDigests()
    ) {
        self.version = version
        self.offset = offset
        self.complete = complete
        self.contentLength = contentLength
        self.uploadLength = uploadLength
        self.digests = digests
    }

    /// The upload's length as this request states it: `Upload-Length`, or offset + `Content-Length` when complete.
    public var declaredLength: Int64? {
        uploadLength ?? (complete ? contentLength.map { offset + $0 } : nil)
    }
}
