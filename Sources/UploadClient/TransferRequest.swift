import HTTPWire
import ResumableUpload

/// One request a transfer sends: its head (without `Host`, which the connection adds) and the byte range of the
/// file its content is.
public struct TransferRequest: Sendable, Hashable {
    /// The resumable-upload operation (§3 of the digest), or a plain upload.
    public enum Kind: Sendable, Hashable {
        /// The creation (the caller's method to the creation URL); also the plain upload.
        case creation
        /// PATCH to the upload resource (§3.5).
        case append
        /// HEAD to the upload resource (§3.4).
        case offsetRetrieval
        /// DELETE to the upload resource (§3.6).
        case cancellation
    }

    public var kind: Kind
    public var url: HTTPURL
    public var head: RequestHead
    /// The upload offset of the first content byte.
    public var offset: Int64
    /// The content length (0 for HEAD and DELETE).
    public var length: Int64
    /// Whether this request's content ends the upload.
    public var completes: Bool

    /// Fields of the caller's that are not repeated after the creation: representation metadata and framing.
    static let creationOnlyPrefixes = ["content-", "upload-", "transfer-encoding", "expect"]

    /// The caller's fields minus representation metadata and framing.
    static func carriedFields(_ fields: HTTPFields) -> HTTPFields {
        HTTPFields(
            fields.filter { field in
                let name = field.name.lowercased()
                return !creationOnlyPrefixes.contains { name.hasPrefix($0) }
            })
    }

    /// The creation: the caller's method and fields; with a version, the interop field, the completion field and
    /// (interop 6+) `Upload-Length`.
    static func creation(
        url: HTTPURL, method: HTTPMethod, fields: HTTPFields, version: InteropVersion?, length: Int64, total: Int64
    ) -> TransferRequest {
        var fields = fields
        let completes = length == total
        if let version {
            fields.remove(InteropVersion.fieldName)
            version.stamp(&fields)
            fields.set(version.completionValue(complete: completes), for: version.completionFieldName)
            if version.supportsUploadLength { fields.set(String(total), for: "Upload-Length") }
        }
        fields.set(String(length), for: "Content-Length")
        let head = RequestHead(method: method, target: url.target, fields: fields)
        return TransferRequest(kind: .creation, url: url, head: head, offset: 0, length: length, completes: completes)
    }

    /// An append of `length` bytes at `offset`: `Upload-Offset`, the completion field, and
    /// `Content-Type: application/partial-upload` from interop 6 (-04).
    static func append(
        url: HTTPURL, fields: HTTPFields, version: InteropVersion, offset: Int64, length: Int64, total: Int64
    ) -> TransferRequest {
        var fields = carriedFields(fields)
        let completes = offset + length == total
        version.stamp(&fields)
        fields.append(name: "Upload-Offset", value: String(offset))
        fields.append(name: version.completionFieldName, value: version.completionValue(complete: completes))
        if version.requiresPartialUploadContentType {
            fields.append(name: "Content-Type", value: "application/partial-upload")
        }
        fields.append(name: "Content-Length", value: String(length))
        let head = RequestHead(method: .patch, target: url.target, fields: fields)
        return TransferRequest(
            kind: .append, url: url, head: head, offset: offset, length: length, completes: completes)
    }

    /// Whether this creation or append completes a resumable upload (it carries the completion field).
    var completesResumableUpload: Bool {
        (kind == .creation || kind == .append) && completes
            && (head.fields.contains("Upload-Complete") || head.fields.contains("Upload-Incomplete"))
    }

    /// States what the whole upload hashes to (RFC 9530 `Repr-Digest`, sha-256), for the request that completes it.
    mutating func stateRepresentation(_ sha256: [UInt8]) {
        head.fields.set(RequestDigests.field([.sha256: sha256]), for: RequestDigests.representationField)
    }

    /// HEAD (offset retrieval) or DELETE (cancellation) on the upload resource, with the interop field.
    static func onResource(_ kind: Kind, url: HTTPURL, fields: HTTPFields, version: InteropVersion) -> TransferRequest {
        var fields = carriedFields(fields)
        version.stamp(&fields)
        let method: HTTPMethod = kind == .cancellation ? .delete : .head
        let head = RequestHead(method: method, target: url.target, fields: fields)
        return TransferRequest(kind: kind, url: url, head: head, offset: 0, length: 0, completes: false)
    }
}
