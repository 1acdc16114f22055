/// A request the resumable-upload rules reject, with the HTTP status and the problem type the draft names.
///
/// Compare on `code`; `detail` is for people. `field` names the request field at fault, and the offsets are
/// those of a 409 `mismatching-upload-offset` (draft -04, interop 6).
public struct UploadProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; stable across releases.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A field is not the structured field the draft defines (400).
        case malformedField
        /// A required field is absent, e.g. `Upload-Offset` on PATCH (400).
        case missingField
        /// A field the request must not carry, e.g. `Upload-Offset` on HEAD in interop 3 … 6 (400).
        case unexpectedField
        /// PATCH without `Content-Type: application/partial-upload` from interop 6 on (415).
        case unsupportedMediaType
        /// `Upload-Offset` differs from the resource's offset (409).
        case mismatchingOffset
        /// Lengths disagree: `Upload-Length` against `Content-Length` with completion, or an offset past the
        /// known length (400).
        case inconsistentLength
        /// An append to an upload that is already complete (400; 410 for an empty append from interop 8).
        case completedUpload
        /// The upload would pass `max-size` (413).
        case uploadTooLarge
        /// A request's content passes `max-append-size` (413).
        case appendTooLarge
        /// A non-final request's content is below `min-append-size` (400).
        case appendTooSmall
        /// No such upload resource, or it was cancelled or expired (404).
        case unknownUpload
        /// A method the upload resource does not support (405).
        case methodNotAllowed
        /// The request's content does not hash to its `Content-Digest` (RFC 9530 §2): not appended (400).
        case contentDigestMismatch
        /// The complete upload does not hash to the `Repr-Digest` its client stated (RFC 9530 §3): the upload
        /// failed and is discarded (400).
        case representationDigestMismatch
    }

    public let code: Code
    public let detail: String
    /// The request field at fault, e.g. `Upload-Offset`.
    public let field: String?
    /// The resource's offset (409).
    public let expectedOffset: Int64?
    /// The request's offset (409).
    public let providedOffset: Int64?
    /// Whether the request would take the offset past the upload's known length (an `inconsistentLength` that is
    /// not merely a disagreeing length): from interop 9 it invalidates the resource.
    public let passesLength: Bool

    public init(
        _ code: Code, _ detail: String, field: String? = nil, expectedOffset: Int64? = nil,
        providedOffset: Int64? = nil, passesLength: Bool = false
    ) {
        self.code = code
        self.detail = detail
        self.field = field
        self.expectedOffset = expectedOffset
        self.providedOffset = providedOffset
        self.passesLength = passesLength
    }

    /// The status the draft recommends, or the natural one where it names none (§3.8 of the digest).
    public var status: Int {
        switch code {
        case .malformedField, .missingField, .unexpectedField, .inconsistentLength, .completedUpload,
            .appendTooSmall, .contentDigestMismatch, .representationDigestMismatch:
            400
        case .unsupportedMediaType: 415
        case .mismatchingOffset: 409
        case .uploadTooLarge, .appendTooLarge: 413
        case .unknownUpload: 404
        case .methodNotAllowed: 405
        }
    }

    /// The problem type URI the draft names for this error, if any: `mismatching-upload-offset`,
    /// `completed-upload` (-04) or `inconsistent-upload-length` (-06). Which versions send it is up to
    /// `UploadResponse.rejection`.
    public var problemType: String? {
        switch code {
        case .mismatchingOffset: UploadProblem.mismatchingOffsetType
        case .completedUpload: UploadProblem.completedUploadType
        case .inconsistentLength: UploadProblem.inconsistentLengthType
        default: nil
        }
    }

    public var description: String {
        "\(code.rawValue) (\(status)): \(detail)"
    }

    static func malformed(_ field: String, _ reason: String) -> Self {
        UploadProtocolError(.malformedField, "\(field) is malformed: \(reason)", field: field)
    }

    static func missing(_ field: String) -> Self {
        UploadProtocolError(.missingField, "\(field) is required", field: field)
    }
}
